/**
 * Terminal rules that cannot work, said once each (a warning in the log and a notification): broken regexes at once,
 * rules that can never match once the shell parser has loaded (it reads each rule as a command): loaded by what needs
 * it, a second after Toolgate's first use or for the first command, never for this.
 */
import * as vscode from 'vscode';
import { brokenTerminalRules, deadTerminalRules } from '../core/shell/rules';
import type { Log } from './log';
import type { Settings } from './settings';

export function watchTerminalRules(settings: Settings, log: Log, shellParserLoaded: () => Promise<void>): vscode.Disposable {
  const reported = new Set<string>();
  const report = (key: string, why: string): void => {
    if (!reported.has(key)) {
      reported.add(key);
      log.warn(`toolgate.autoApprove.terminal: ${key} ${why}`);
      void vscode.window.showWarningMessage(`Toolgate: the terminal rule ${key} ${why}.`);
    }
  };
  const check = (): void => {
    const rules = settings.get('autoApprove.terminal');
    for (const key of brokenTerminalRules(rules)) {
      report(key, 'is not a valid regular expression, so it matches nothing');
    }
    void shellParserLoaded().then(() => {
      for (const { key, why } of deadTerminalRules(rules)) {
        report(key, `can never allow a command: ${why}`);
      }
    });
  };
  check();
  return settings.onDidChange((affects) => {
    if (affects('autoApprove.terminal')) {
      check();
    }
  });
}
