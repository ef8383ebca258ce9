/**
 * Workspace state, mirrored to a file under the extension's workspace storage. In a browser-hosted VS Code
 * (code-server) workspace state is written from the page and a window reload right after a change can drop it; the
 * file is written by the extension host and awaited. On read, the copy with the higher revision wins, so a grant the
 * person made (or revoked) is never silently undone. Removing a key (`undefined`) removes its file.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KeyValueStore } from './keyValueStore';

function revisionOf(value: unknown): number {
  if (value !== null && typeof value === 'object' && 'revision' in value) {
    const revision = value.revision;
    return typeof revision === 'number' ? revision : 0;
  }
  return 0;
}

export class MirroredWorkspaceState implements KeyValueStore {
  constructor(
    /** VS Code's workspace state (a Memento: it can list its keys). */
    private readonly state: KeyValueStore & { keys(): readonly string[] },
    private readonly folder: string,
    private readonly warn: (message: string) => void,
  ) {}

  private file(key: string): string {
    return path.join(this.folder, `${key.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`);
  }

  /** The keys held in either copy (a file's key only where its name is the key itself, not a replacement). */
  keys(): readonly string[] {
    let files: string[] = [];
    try {
      files = readdirSync(this.folder)
        .filter((name) => name.endsWith('.json'))
        .map((name) => name.slice(0, -'.json'.length))
        .filter((key) => /^[A-Za-z0-9_.-]+$/.test(key));
    } catch {
      // no folder yet: nothing mirrored
    }
    return [...new Set([...this.state.keys(), ...files])];
  }

  get(key: string): unknown {
    const fromState = this.state.get(key);
    let fromFile: unknown;
    try {
      fromFile = JSON.parse(readFileSync(this.file(key), 'utf8')) as unknown;
    } catch {
      fromFile = undefined;
    }
    if (fromFile === undefined) {
      return fromState;
    }
    return fromState === undefined || revisionOf(fromFile) > revisionOf(fromState) ? fromFile : fromState;
  }

  async update(key: string, value: unknown): Promise<void> {
    await this.state.update(key, value);
    try {
      const target = this.file(key);
      if (value === undefined) {
        rmSync(target, { force: true });
        return;
      }
      mkdirSync(this.folder, { recursive: true });
      writeFileSync(`${target}.tmp`, JSON.stringify(value));
      renameSync(`${target}.tmp`, target);
    } catch (error) {
      this.warn(`could not mirror ${key} to ${this.folder}: ${String(error)}`);
    }
  }
}
