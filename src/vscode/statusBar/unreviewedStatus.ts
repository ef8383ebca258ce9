/**
 * The status-bar item that says, while it is so, that commands' changes land in the workspace without review (and
 * why, and what fixes it): the wording is src/core/views/unreviewed's; a click opens the setting where that is the fix.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/disposable';
import type { CommandSandbox } from '../../core/sandbox/commandSandbox';
import { unreviewedItem, type UnreviewedItem } from '../../core/views/unreviewed';
import type { Log } from '../log';
import type { Settings } from '../settings';

export class UnreviewedStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('toolgate.unreviewed', vscode.StatusBarAlignment.Left, 999);

  private readonly store = new DisposableStore();

  /** Checked a second after start (the overlay probe is not on activation's path), then on each change that matters. */
  constructor(
    private readonly sandbox: Pick<CommandSandbox, 'stagingStatus'>,
    settings: Settings,
    private readonly log: Log,
  ) {
    this.item.name = 'Toolgate: command changes not reviewed';
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    const first = setTimeout(() => this.refresh(), 1_000);
    this.store.add({ dispose: () => clearTimeout(first) });
    this.store.add(settings.onDidChange((affects) => affects('sandbox.reviewCommandChanges') && this.refresh()));
    this.store.add(vscode.workspace.onDidChangeWorkspaceFolders(() => this.refresh()));
  }

  refresh(): void {
    this.sandbox.stagingStatus().then(
      (status) => this.show(unreviewedItem(status)),
      (error: unknown) => this.log.warn(`the staging check failed: ${String(error)}`),
    );
  }

  show(view: UnreviewedItem | undefined): void {
    if (view === undefined) {
      this.item.hide();
      return;
    }
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.command = view.setting === undefined ? undefined : { title: 'Open the setting', command: 'workbench.action.openSettings', arguments: [view.setting] };
    this.item.show();
  }

  dispose(): void {
    this.store.dispose();
    this.item.dispose();
  }
}
