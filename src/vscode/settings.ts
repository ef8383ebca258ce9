import * as vscode from 'vscode';
import { parseSetting, type SettingKey, type SettingValue } from '../core/settings';
import type { Log } from './log';

/** Reads a Toolgate setting through its schema; a malformed value is reported once and replaced by the default. */
export class Settings {
  private readonly reported = new Set<string>();

  constructor(private readonly log: Log) {}

  get<K extends SettingKey>(key: K): SettingValue<K> {
    const raw: unknown = vscode.workspace.getConfiguration('toolgate').get<unknown>(key);
    const parsed = parseSetting(key, raw);
    if (parsed.problem !== undefined && !this.reported.has(parsed.problem)) {
      this.reported.add(parsed.problem);
      this.log.warn(parsed.problem);
      // Said where the person looks, with the way to fix it: the safe default holds meanwhile.
      void vscode.window.showWarningMessage(`Toolgate: ${parsed.problem}.`, 'Open Setting').then((choice) => {
        if (choice === 'Open Setting') {
          void vscode.commands.executeCommand('workbench.action.openSettings', `toolgate.${key}`);
        }
      });
    }
    return parsed.value;
  }

  onDidChange(listener: (affects: (key: SettingKey) => boolean) => void): vscode.Disposable {
    return vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('toolgate')) {
        listener((key) => event.affectsConfiguration(`toolgate.${key}`));
      }
    });
  }
}
