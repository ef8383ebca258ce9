/**
 * A staged command's files on disk: the text a staged file holds, whether the person changed a file while the command
 * ran, and one step on a change's path beneath its workspace folder (never through a link).
 */
import { promises as fs } from 'node:fs';
import { decodeFile, encodeText, sha256Bytes } from '../files/encoding';
import { Beneath, BeneathRefusal, beneathSupported } from '../sandbox/beneath';
import type { StagedChange } from '../sandbox/changeSet';
import type { Stage } from '../sandbox/stage';
import type { FileSnapshot } from './ports';

/** The text a staged file holds, when it can land as text: decoded in the file's own format and byte-exact. */
export async function stagedText(staged: string, base: FileSnapshot): Promise<string | undefined> {
  const bytes = await fs.readFile(staged);
  const preferred = base.exists && base.format.kind === 'text' ? base.format.encoding : undefined;
  const decoded = await decodeFile(bytes, preferred);
  if (decoded.format.kind !== 'text') {
    return undefined;
  }
  // The write goes out in the base's format (a new file: UTF-8): the staged bytes must be exactly what that writes.
  const format = base.exists && base.format.kind === 'text' ? base.format : { kind: 'text' as const, encoding: 'utf8', bom: false };
  if (decoded.format.encoding !== format.encoding || decoded.format.bom !== format.bom) {
    return undefined;
  }
  const round = await encodeText(decoded.text, format);
  return Buffer.from(round).equals(bytes) ? decoded.text : undefined;
}

export async function diskHash(absolute: string): Promise<string | undefined> {
  try {
    return sha256Bytes(await fs.readFile(absolute));
  } catch {
    return undefined;
  }
}

/**
 * Whether the person changed the file while the command ran: on disk after the stage was made, or in an editor
 * (the snapshot, which is an open buffer's text, is not what the disk holds).
 */
export async function changedMeanwhile(stage: Stage, absolute: string, base: FileSnapshot): Promise<string | undefined> {
  const stat = await fs.lstat(absolute).catch(() => undefined);
  if (stat !== undefined && !stat.isDirectory() && stat.mtimeMs > stage.startedMs) {
    return 'it was changed in the workspace while the command ran';
  }
  if (stat?.isFile() === true && base.exists && (await diskHash(absolute)) !== base.hash) {
    return 'it has unsaved changes in an editor';
  }
  return undefined;
}

/**
 * Runs one step on a change's path beneath its workspace folder (./../sandbox/beneath: never through a link); a link
 * on the way is answered as the refusal it is. Where descriptors cannot be walked (not Linux: no stage there either),
 * by path.
 */
export async function beneathStep(change: StagedChange, step: (beneath: Beneath) => Promise<void>, byPath: () => Promise<void>): Promise<'done' | 'link'> {
  if (!beneathSupported) {
    await byPath();
    return 'done';
  }
  const beneath = await Beneath.open(change.folder);
  try {
    await step(beneath);
    return 'done';
  } catch (error) {
    if (error instanceof BeneathRefusal && error.kind === 'link') {
      return 'link';
    }
    throw error;
  } finally {
    await beneath.close();
  }
}
