/**
 * File operations that stay beneath one workspace folder and never follow a symbolic link (issue 35, "landing follows
 * links"): a staged command's changes are landed by the extension host, unconfined, while anything else in the
 * workspace (another command, the person) may swap a folder for a link. Checking a path for links and then writing by
 * that path is two steps, and the link can come in between.
 *
 * Hand-written because Node has no openat() and no library offers the *at() family to it: on Linux, `/proc/self/fd/<fd>`
 * is a magic link to that very open folder, so `/proc/self/fd/<fd>/<name>` resolves exactly one component by name, in
 * the folder the descriptor holds, wherever it has been moved since. A path is walked from a descriptor of the
 * workspace folder one component at a time, each opened O_DIRECTORY|O_NOFOLLOW (a link there fails), and the last step
 * is done in the final parent's descriptor: files are created O_CREAT|O_EXCL|O_NOFOLLOW, rename, mkdir, unlink, rmdir
 * and symlink never follow their final component, a mode is set on the file opened O_PATH|O_NOFOLLOW (chmod by path
 * follows a final link), and a folder is removed by descriptor, entry by entry.
 */
import { constants, promises as fs, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** Why a step was refused: a link on the way (or at the end, where the step would follow it), or a file where a folder is needed. */
export type BeneathRefusalKind = 'link' | 'not-a-folder';

export class BeneathRefusal extends Error {
  constructor(
    readonly kind: BeneathRefusalKind,
    readonly relative: string,
  ) {
    super(kind === 'link' ? `${relative} is a symbolic link, which is not followed` : `${relative} is not a folder`);
  }
}

/** Linux's O_PATH (the same value on x86 and arm; Node does not export it): an fd that names a file without opening it. */
const oPath = 0o10000000;
const folderFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Whether descriptor-relative steps work here: Linux with /proc mounted. */
export const beneathSupported = process.platform === 'linux';

const at = (dir: FileHandle, name: string): string => `/proc/self/fd/${dir.fd}/${name}`;
const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** The components of a relative path: never empty, `.`, `..` or absolute (those would leave the walk). */
function partsOf(relative: string): string[] {
  const parts = relative.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.length === 0 || parts.includes('..') || path.isAbsolute(relative)) {
    throw new Error(`${relative} is not a path beneath the folder`);
  }
  return parts;
}

async function lstatAt(dir: FileHandle, name: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(at(dir, name));
  } catch (error) {
    if (code(error) === 'ENOENT') {
      return undefined;
    }
    throw error;
  }
}

/** Opens the folder `name` in `dir`; a link there is refused (O_NOFOLLOW on a folder open fails ENOTDIR or ELOOP). */
async function openFolderAt(dir: FileHandle, name: string, relative: string): Promise<FileHandle> {
  try {
    return await fs.open(at(dir, name), folderFlags);
  } catch (error) {
    if (code(error) === 'ENOTDIR' || code(error) === 'ELOOP') {
      throw new BeneathRefusal((await lstatAt(dir, name))?.isSymbolicLink() === true ? 'link' : 'not-a-folder', relative);
    }
    throw error;
  }
}

/** A name for a file written beside its target before it is renamed over it. */
const temporaryName = (name: string): string => `.${name}.toolgate-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

/** One workspace folder, opened once; every step walks from its descriptor. Close it when done. */
export class Beneath {
  private constructor(
    readonly root: string,
    private readonly handle: FileHandle,
  ) {}

  /** Opens `root` (the workspace folder itself, a real path the person opened: the one path followed as given). */
  static async open(root: string): Promise<Beneath> {
    return new Beneath(root, await fs.open(root, constants.O_RDONLY | constants.O_DIRECTORY));
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  /** Runs `step` in the folder that holds `relative`'s last component (made on the way when `make`), and closes it. */
  private async inParent<T>(relative: string, make: boolean, step: (dir: FileHandle, name: string) => Promise<T>): Promise<T> {
    const parts = partsOf(relative);
    const name = parts.pop() ?? '';
    let dir = this.handle;
    try {
      for (const [index, part] of parts.entries()) {
        const walked = parts.slice(0, index + 1).join('/');
        // Made only when missing (most are there: one open, not a mkdir first, per folder on the way).
        const next = await openFolderAt(dir, part, walked).catch(async (error: unknown) => {
          if (!make || code(error) !== 'ENOENT') {
            throw error;
          }
          await fs.mkdir(at(dir, part)).catch((failure: unknown) => {
            if (code(failure) !== 'EEXIST') {
              throw failure;
            }
          });
          return await openFolderAt(dir, part, walked);
        });
        if (dir !== this.handle) {
          await dir.close();
        }
        dir = next;
      }
      return await step(dir, name);
    } finally {
      if (dir !== this.handle) {
        await dir.close();
      }
    }
  }

  /**
   * Whether a folder on the way to `relative` is a link (or a file), now: a check before asking, so the person is not
   * asked about a change that cannot land there. The step that lands it checks again (it walks the same way).
   */
  async linkOnTheWay(relative: string): Promise<BeneathRefusal | undefined> {
    try {
      await this.inParent(relative, false, () => Promise.resolve());
      return undefined;
    } catch (error) {
      if (error instanceof BeneathRefusal) {
        return error;
      }
      if (code(error) === 'ENOENT') {
        return undefined;
      }
      throw error;
    }
  }

  /** The entry itself (a link is described, not followed), or undefined when it is not there. */
  async lstat(relative: string): Promise<Stats | undefined> {
    try {
      return await this.inParent(relative, false, (dir, name) => lstatAt(dir, name));
    } catch (error) {
      if (code(error) === 'ENOENT') {
        return undefined;
      }
      throw error;
    }
  }

  /** A file's bytes; a link at its place is refused, never followed. */
  async readFile(relative: string): Promise<Buffer> {
    return await this.inParent(relative, false, async (dir, name) => {
      const file = await fs.open(at(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: unknown) => {
        throw code(error) === 'ELOOP' ? new BeneathRefusal('link', relative) : error;
      });
      try {
        return await file.readFile();
      } finally {
        await file.close();
      }
    });
  }

  /** Makes the folder and those on its way; a link on the way, or at its place, is refused. */
  async mkdir(relative: string): Promise<void> {
    await this.inParent(relative, true, async (dir, name) => {
      await fs.mkdir(at(dir, name)).catch((error: unknown) => {
        if (code(error) !== 'EEXIST') {
          throw error;
        }
      });
      await (await openFolderAt(dir, name, relative)).close();
    });
  }

  /**
   * Moves `from` (outside the workspace: the stage) to `relative`, its folders made on the way; false (nothing done)
   * when the two are on different disks. rename(2) never follows its final component: a link there is replaced (a
   * file) or refused by the kernel (a folder moved onto it).
   */
  async moveIn(from: string, relative: string): Promise<boolean> {
    return await this.inParent(relative, true, async (dir, name) => {
      try {
        await fs.rename(from, at(dir, name));
        return true;
      } catch (error) {
        if (code(error) === 'EXDEV') {
          return false;
        }
        throw error;
      }
    });
  }

  /**
   * Writes `bytes` as a new file beside `relative` (O_CREAT|O_EXCL|O_NOFOLLOW, the mode set on its descriptor) and
   * renames it over: the old file, and any other name it has (a hard link), is replaced, never written through.
   */
  async replaceFile(relative: string, content: Uint8Array | { copyOf: string }, mode: number): Promise<void> {
    await this.inParent(relative, true, async (dir, name) => {
      const temporary = temporaryName(name);
      const file = await fs.open(at(dir, temporary), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        await (content instanceof Uint8Array ? file.writeFile(content) : copyInto(content.copyOf, file));
        await file.chmod(mode);
      } catch (error) {
        await file.close();
        await fs.unlink(at(dir, temporary)).catch(() => undefined);
        throw error;
      }
      await file.close();
      await fs.rename(at(dir, temporary), at(dir, name));
    });
  }

  /** Makes `relative` a symbolic link to `target`, replacing what is there (made beside it and renamed over). */
  async symlink(target: string, relative: string): Promise<void> {
    await this.inParent(relative, true, async (dir, name) => {
      const temporary = temporaryName(name);
      await fs.symlink(target, at(dir, temporary));
      await fs.rename(at(dir, temporary), at(dir, name));
    });
  }

  /** Sets a file's mode; a link at its place is refused, never followed. */
  async chmod(relative: string, mode: number): Promise<void> {
    await this.inParent(relative, false, async (dir, name) => {
      // O_PATH: opened without read or write access (a file of mode 000 still gets its mode), and with O_NOFOLLOW a
      // link is opened as itself. Its /proc/self/fd entry then names that very inode.
      const file = await fs.open(at(dir, name), oPath | constants.O_NOFOLLOW);
      try {
        if (!(await file.stat()).isFile()) {
          throw new BeneathRefusal((await file.stat()).isSymbolicLink() ? 'link' : 'not-a-folder', relative);
        }
        await fs.chmod(`/proc/self/fd/${file.fd}`, mode);
      } finally {
        await file.close();
      }
    });
  }

  /**
   * An O_PATH descriptor of the file at `relative` (a link there is opened as itself, never followed, so the caller's
   * fstat sees it), made empty first, with the folders on its way, when it is missing and `create`. `created`: made now.
   */
  async openPath(relative: string, create: boolean): Promise<{ handle: FileHandle; created: boolean }> {
    return await this.inParent(relative, create, async (dir, name) => {
      let created = false;
      if (create) {
        try {
          await (await fs.open(at(dir, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644)).close();
          created = true;
        } catch (error) {
          if (code(error) !== 'EEXIST') {
            throw error;
          }
        }
      }
      return { handle: await fs.open(at(dir, name), oPath | constants.O_NOFOLLOW), created };
    });
  }

  /** Removes an empty folder (never a link's target: rmdir of a link fails). */
  async rmdir(relative: string): Promise<void> {
    await this.inParent(relative, false, (dir, name) => fs.rmdir(at(dir, name)));
  }

  /**
   * Removes `relative` and, for a folder, everything in it, by descriptor: a folder on the way that became a link is
   * refused; inside, a link is removed as itself, never entered. Nothing there is not an error.
   */
  async remove(relative: string): Promise<void> {
    try {
      await this.inParent(relative, false, (dir, name) => removeAt(dir, name, relative));
    } catch (error) {
      if (code(error) !== 'ENOENT') {
        throw error;
      }
    }
  }
}

/** Copies a file (the stage's, outside the workspace) into an open one, in chunks. */
async function copyInto(from: string, to: FileHandle): Promise<void> {
  const source = await fs.open(from, 'r');
  try {
    const buffer = Buffer.alloc(1024 * 1024);
    for (;;) {
      const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) {
        return;
      }
      await to.write(buffer, 0, bytesRead);
    }
  } finally {
    await source.close();
  }
}

async function removeAt(dir: FileHandle, name: string, relative: string): Promise<void> {
  const stat = await lstatAt(dir, name);
  if (stat === undefined) {
    return;
  }
  if (!stat.isDirectory()) {
    await fs.unlink(at(dir, name));
    return;
  }
  let folder: FileHandle;
  try {
    folder = await openFolderAt(dir, name, relative);
  } catch (error) {
    if (error instanceof BeneathRefusal) {
      // It became a link (or a file) since: that name is removed, what it points to is not touched.
      await fs.unlink(at(dir, name));
      return;
    }
    throw error;
  }
  try {
    for (const entry of await fs.readdir(`/proc/self/fd/${folder.fd}`)) {
      await removeAt(folder, entry, `${relative}/${entry}`);
    }
  } finally {
    await folder.close();
  }
  await fs.rmdir(at(dir, name));
}

/** Opens each workspace folder once for a batch of steps, and closes them all. */
export class BeneathFolders {
  private readonly open = new Map<string, Promise<Beneath>>();

  of(root: string): Promise<Beneath> {
    let found = this.open.get(root);
    if (found === undefined) {
      found = Beneath.open(root);
      this.open.set(root, found);
    }
    return found;
  }

  async close(): Promise<void> {
    for (const opened of this.open.values()) {
      await opened.then((beneath) => beneath.close()).catch(() => undefined);
    }
    this.open.clear();
  }
}
