import * as vscode from 'vscode';
import { PathResolver, type ResolvedPath } from '../core/approval/paths';

/**
 * One resolver over the workspace folders (their real paths computed once), shared by the tools and the policy, and
 * rebuilt when the folders change.
 */
export class WorkspacePaths implements vscode.Disposable {
  private cached: PathResolver | undefined;
  private readonly subscription = vscode.workspace.onDidChangeWorkspaceFolders(() => {
    this.cached = undefined;
  });

  get resolver(): PathResolver {
    this.cached ??= new PathResolver((vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath));
    return this.cached;
  }

  /** Where an absolute path a command uses really is, for the policy (resolved as the kernel would). */
  locate(absolute: string): ResolvedPath {
    return this.resolver.locate(absolute);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
