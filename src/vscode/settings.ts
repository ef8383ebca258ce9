import * as vscode from 'vscode';
import { deepFreeze } from '../core/deepFreeze';
import { parseSetting, type SettingKey, type SettingValue } from '../core/settings';
import type { Log } from './log';

/**
 * Reads a Toolgate setting through its schema; a malformed value is reported once and replaced by the default.
 * The configuration is read once and kept until VS Code says it changed (or the workspace became trusted, which lets
 * restricted settings through): `getConfiguration` merges every scope on each call, and the gate reads settings for
 * every call it judges, so 200 calls arriving at once spent 70 ms of one turn of the extension host in it.
 */
export class Settings implements vscode.Disposable {
  private readonly reported = new Set<string>();
  private config: vscode.WorkspaceConfiguration | undefined;
  /**
   * Each setting's value as parsed, until the configuration changes: the same (frozen) object for every call judged,
   * so what the policy derives from one (its rules split, its globs compiled) is derived once, not per call.
   */
  private readonly values = new Map<SettingKey, unknown>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly log: Log) {
    const forget = (): void => {
      this.config = undefined;
      this.values.clear();
    };
    this.subscriptions = [
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('toolgate')) {
          forget();
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(forget),
      vscode.workspace.onDidChangeWorkspaceFolders(forget),
    ];
  }

  get<K extends SettingKey>(key: K): SettingValue<K> {
    if (this.values.has(key)) {
      return this.values.get(key) as SettingValue<K>;
    }
    this.config ??= vscode.workspace.getConfiguration('toolgate');
    const raw: unknown = this.config.get<unknown>(key);
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
    this.values.set(key, deepFreeze(parsed.value));
    return parsed.value;
  }

  onDidChange(listener: (affects: (key: SettingKey) => boolean) => void): vscode.Disposable {
    return vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('toolgate')) {
        // Whichever listener VS Code calls first, what it reads is the new configuration.
        this.config = undefined;
        listener((key) => event.affectsConfiguration(`toolgate.${key}`));
      }
    });
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}
