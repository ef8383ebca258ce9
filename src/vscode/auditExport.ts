/**
 * The audit export in this window: its spool in Toolgate's global storage (one file per workspace), the workspace id
 * from the folders' URIs, collector headers from the secret storage, the configuration from the machine-scoped
 * setting `toolgate.audit.otlp` (the managed settings file's `audit.otlp` is handed to `configure(…, 'managed')`), and
 * its status bar item. The export itself is src/core/audit/export/auditExport.ts.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import { AuditExport, spoolFile } from '../core/audit/export/auditExport';
import { typedHeaders } from '../core/audit/export/collectorHeaders';
import { exportStatusItem } from '../core/audit/export/exportStatusView';
import { workspaceId } from '../core/audit/export/exportRecord';
import { DisposableStore } from '../core/disposable';
import type { Log } from './log';
import type { AuditLog } from '../core/audit/auditLog';
import { managedExportConfig } from '../core/audit/export/otlpConfig';
import type { ManagedState } from '../core/managed/managedState';
import type { Settings } from './settings';

/** The secret holding extra collector headers: a JSON object of names to values. */
export const exportHeadersSecret = 'toolgate.audit.otlp.headers';

export class WindowAuditExport implements vscode.Disposable {
  readonly exporter: AuditExport;
  private readonly secrets: vscode.SecretStorage;
  private readonly store = new DisposableStore();
  private readonly item = vscode.window.createStatusBarItem('toolgate.auditExport', vscode.StatusBarAlignment.Left, 998);

  constructor(
    context: vscode.ExtensionContext,
    settings: Settings,
    log: Log,
    version: string,
    /** Every decision of the audit log is handed on; the managed settings file's `audit.otlp` wins over the setting. */
    { audit, managed }: { audit: Pick<AuditLog, 'onDidRecord'>; managed: Pick<ManagedState, 'policy' | 'onDidChange'> },
  ) {
    const secrets = (this.secrets = context.secrets);
    this.exporter = new AuditExport({
      spoolFile: spoolFile(path.join(context.globalStorageUri.fsPath, 'audit-export'), context.storageUri?.toString() ?? 'empty'),
      workspaceId: () => workspaceId((vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString())),
      log,
      serviceVersion: version,
      secretHeaders: {
        get: () => Promise.resolve(secrets.get(exportHeadersSecret)),
        onDidChange: (listener) => secrets.onDidChange((event) => event.key === exportHeadersSecret && listener()),
      },
    });
    this.item.name = 'Toolgate: audit export';
    this.store.add(this.exporter.onDidChangeStatus((status) => this.show(exportStatusItem(status))));
    const fromSetting = (): void => this.exporter.configure(settings.get('audit.otlp') ?? undefined, 'setting');
    this.store.add(settings.onDidChange((affects) => affects('audit.otlp') && fromSetting()));
    fromSetting();
    const fromManaged = (): void => {
      const { config, problem } = managedExportConfig(managed.policy());
      if (problem !== undefined) {
        log.warn(problem);
      }
      this.exporter.configure(config, 'managed');
    };
    this.store.add(managed.onDidChange(fromManaged));
    fromManaged();
    // Only enqueued: a decision never waits for the export.
    this.store.add(audit.onDidRecord((entry) => this.exporter.record(entry)));
  }

  /** The commands of the export: the collector's headers kept in the secret storage. */
  readonly commands = {
    'toolgate.setAuditExportHeaders': async (): Promise<void> => {
      const text = await vscode.window.showInputBox({
        title: 'Toolgate: Set Audit Export Headers',
        prompt: 'The headers sent to the audit export\'s collector, as a JSON object (empty removes them). Kept in VS Code\'s secret storage; a headers file\'s names win.',
        placeHolder: '{"Authorization": "Bearer …"}',
        password: true,
        ignoreFocusOut: true,
      });
      if (text === undefined) {
        return;
      }
      const typed = typedHeaders(text);
      if ('problem' in typed) {
        void vscode.window.showErrorMessage(`Toolgate: ${typed.problem}`);
        return;
      }
      await (typed.store === undefined ? this.secrets.delete(exportHeadersSecret) : this.secrets.store(exportHeadersSecret, typed.store));
      void vscode.window.showInformationMessage(typed.store === undefined ? 'Toolgate: the audit export\'s headers were removed.' : 'Toolgate: the audit export\'s headers were stored.');
    },
  };

  private show(view: ReturnType<typeof exportStatusItem>): void {
    if (view === undefined) {
      this.item.hide();
      return;
    }
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.store.dispose();
    this.exporter.dispose();
    this.item.dispose();
  }
}
