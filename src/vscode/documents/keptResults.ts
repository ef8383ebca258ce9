/**
 * Tool results too long for the model, kept whole for the person: one file each under Toolgate's workspace storage
 * (the newest 100; older ones are removed), opened in an editor from the chat's "Open the whole result".
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import type { ResultKeeper } from '../../core/tools/ports';
import { messageSchemas } from '../../core/protocolSchemas';
import type { Outcome } from '../../core/views/viewRequests';

const keptFiles = 100;

export class KeptResults implements ResultKeeper {
  constructor(private readonly folder: string) {}

  async keep(text: string): Promise<string> {
    const ref = randomUUID();
    await mkdir(this.folder, { recursive: true });
    await writeFile(this.file(ref), text, 'utf8');
    void this.prune().catch(() => undefined);
    return ref;
  }

  async open(ref: string): Promise<Outcome> {
    if (!messageSchemas().ResultRef.safeParse(ref).success) {
      return { ok: false, error: 'not a kept result' };
    }
    try {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.file(this.file(ref)));
      await vscode.window.showTextDocument(document, { preview: true });
      return { ok: true };
    } catch {
      return { ok: false, error: 'that result is no longer kept (only the newest 100 are)' };
    }
  }

  private file(ref: string): string {
    return path.join(this.folder, `${ref}.txt`);
  }

  private async prune(): Promise<void> {
    const names = (await readdir(this.folder)).filter((name) => name.endsWith('.txt'));
    if (names.length <= keptFiles) {
      return;
    }
    const dated = await Promise.all(names.map(async (name) => ({ name, mtime: (await stat(path.join(this.folder, name))).mtimeMs })));
    dated.sort((a, b) => a.mtime - b.mtime);
    await Promise.all(dated.slice(0, dated.length - keptFiles).map(({ name }) => rm(path.join(this.folder, name), { force: true })));
  }
}
