import * as vscode from 'vscode';
import { PathResolver } from '../core/approval/paths';

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

  /** Where an absolute path really is, for the policy: inside which root, and relative to it. */
  locate(absolute: string): { inside: boolean; relative?: string } {
    const resolved = this.resolver.resolve(absolute);
    return resolved.root !== undefined ? { inside: true, relative: resolved.relative ?? '' } : { inside: false };
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
