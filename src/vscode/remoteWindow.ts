import * as vscode from 'vscode';

/** Whether this window's extensions run on another machine (code-server, SSH, WSL, a container). */
export function isRemoteWindow(): boolean {
  return vscode.env.remoteName !== undefined;
}
