/**
 * Texts shown in read-only editors under one URI scheme (a staged file so far, an undo's merge, a task's file before
 * and after): each is held under a fresh id, and its URI names only that id and a label, so nothing is ever read back
 * from a path a URI names. A text no longer held shows `gone`.
 */
import * as vscode from 'vscode';
import type { Disposable } from '../../core/disposable';

export class ReadOnlyTexts implements Disposable {
  private readonly texts = new Map<string, string>();
  private next = 0;
  private readonly registration: vscode.Disposable;

  constructor(
    private readonly scheme: string,
    gone: string,
    /** The most texts held; past it the oldest are dropped first (default: all, while the window lives). */
    private readonly keep = Number.POSITIVE_INFINITY,
  ) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(scheme, {
      provideTextDocumentContent: (uri) => this.texts.get(uri.path.split('/')[1] ?? '') ?? gone,
    });
  }

  /** A document holding `text`, its tab titled by `label`'s last part; `release` forgets it. */
  hold(text: string, label: string): { uri: vscode.Uri; release: () => void } {
    const id = String(this.next++);
    this.texts.set(id, text);
    for (const old of this.texts.keys()) {
      if (this.texts.size <= this.keep) {
        break;
      }
      this.texts.delete(old);
    }
    return { uri: vscode.Uri.from({ scheme: this.scheme, path: `/${id}/${label}` }), release: () => this.texts.delete(id) };
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
