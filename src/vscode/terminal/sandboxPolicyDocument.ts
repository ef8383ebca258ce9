/**
 * **Toolgate: Show Sandbox Policy** in a read-only editor: the argument checked and the report built in the core
 * (src/core/sandbox/policyReport.ts); here it is only shown. Resolves with the report's text.
 */
import * as vscode from 'vscode';
import { commandArgOrThrow } from '../../core/commandArgs';
import type { CommandSandbox } from '../../core/sandbox/commandSandbox';
import { sandboxPolicyReport } from '../../core/sandbox/policyReport';
import { loadSeatbelt } from '../../core/sandbox/seatbelt';
import { ReadOnlyTexts } from '../documents/readOnlyTexts';
import type { ReportSection } from '../../core/managed/managedReport';

export class SandboxPolicyDocument implements vscode.Disposable {
  static readonly scheme = 'toolgate-sandbox-policy';
  private readonly texts = new ReadOnlyTexts(SandboxPolicyDocument.scheme, '(No longer shown: run Toolgate: Show Sandbox Policy again.)\n', 5);

  constructor(
    private readonly sandbox: Pick<CommandSandbox, 'policyInputs' | 'passEnvironment'>,
    /** The managed settings file's section of the report. */
    private readonly managed?: () => ReportSection,
  ) {}

  async show(arg?: unknown): Promise<string> {
    const asked = commandArgOrThrow('toolgate.showSandboxPolicy', arg)?.platform;
    const platform = asked ?? (process.platform === 'darwin' ? 'darwin' : 'linux');
    const text = await sandboxPolicyReport({ platform, hostPlatform: process.platform, inputs: this.sandbox.policyInputs(), passEnvironment: this.sandbox.passEnvironment(), seatbelt: () => loadSeatbelt(), ...(this.managed !== undefined ? { managed: this.managed() } : {}) });
    const { uri } = this.texts.hold(text, `Sandbox policy (${platform === 'darwin' ? 'macOS' : 'Linux'})`);
    await vscode.window.showTextDocument(uri, { preview: true });
    return text;
  }

  dispose(): void {
    this.texts.dispose();
  }
}
