import * as vscode from 'vscode';

/** The one log channel of the extension ("Toolgate" in the Output panel; also written to the extension's log file). */
export type Log = vscode.LogOutputChannel;

export function createLog(): Log {
  return vscode.window.createOutputChannel('Toolgate', { log: true });
}
