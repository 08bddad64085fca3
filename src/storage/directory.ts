// FileStorage on a local directory (FILES_DIR). put() streams into a temporary file beside the
// target, fsyncs it, renames it into place and fsyncs the directory: a reader never sees half a
// file, and after a power cut a key holds either all its bytes or nothing. A failed or destroyed
// stream removes its temporary file at once; only a crash of the process can leave one
// (`*.partial`), and removeIncomplete() clears those. Files are readable by the owner only.
import { createWriteStream } from 'node:fs';
import { open, mkdir, opendir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import type { Dir } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { FileStorage, StoredKey, StoredObject } from './storage.ts';

// Segments start with a letter, digit, _ or -: no ".", "..", hidden names or absolute paths.
const KEY = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*(\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/;
const PARTIAL = '.partial';

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';

export class DirectoryStorage implements FileStorage {
  private readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    // keys are built from ids by the application; refuse anything else outright
    if (key.length > 1024 || !KEY.test(key) || key.endsWith(PARTIAL)) throw new Error('invalid storage key');
    const p = resolve(join(this.root, key));
    if (!p.startsWith(this.root + sep)) throw new Error('invalid storage key');
    return p;
  }

  async put(key: string, body: Readable): Promise<StoredObject> {
    const target = this.path(key);
    const dir = dirname(target);
    let tmp: string | null = null;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      tmp = `${target}.${randomUUID()}${PARTIAL}`;
      await pipeline(body, createWriteStream(tmp, { flags: 'wx', mode: 0o600 }));
      // fsync through a new descriptor: it flushes the file, whichever descriptor wrote it
      const fh = await open(tmp, 'r+');
      let size: number;
      try {
        await fh.sync();
        size = (await fh.stat()).size;
      } finally {
        await fh.close();
      }
      await rename(tmp, target);
      tmp = null;
      await syncDir(dir);
      return { size };
    } catch (err) {
      // a failure before the body was piped (mkdir, open) must still release the upload
      if (!body.destroyed) body.destroy();
      if (tmp) await rm(tmp, { force: true });
      throw err;
    }
  }

  async get(key: string) {
    const p = this.path(key);
    let fh: FileHandle;
    try {
      fh = await open(p, 'r');
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    // the open handle keeps the bytes readable even if the key is deleted meanwhile
    try {
      const { size } = await fh.stat();
      return { stream: fh.createReadStream() as Readable, size };
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async *list(): AsyncIterable<StoredKey> {
    for await (const f of this.walk(this.root, '')) {
      if (f.name.endsWith(PARTIAL) || !KEY.test(f.rel)) continue;
      const s = await stat(f.abs).catch(() => null); // deleted meanwhile
      if (s) yield { key: f.rel, modifiedAt: s.mtime };
    }
  }

  async removeIncomplete(olderThan: Date): Promise<number> {
    let removed = 0;
    for await (const f of this.walk(this.root, '')) {
      if (!f.name.endsWith(PARTIAL)) continue;
      const s = await stat(f.abs).catch(() => null);
      if (s && s.mtime < olderThan) {
        await rm(f.abs, { force: true });
        removed++;
      }
    }
    return removed;
  }

  private async *walk(dir: string, prefix: string): AsyncGenerator<{ abs: string; rel: string; name: string }> {
    let d: Dir;
    try {
      d = await opendir(dir);
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    for await (const ent of d) {
      const rel = prefix ? `${prefix}/${ent.name}` : ent.name;
      const abs = join(dir, ent.name);
      if (ent.isDirectory()) yield* this.walk(abs, rel);
      else if (ent.isFile()) yield { abs, rel, name: ent.name };
    }
  }
}

// The rename is durable only once the directory entry is; some platforms cannot fsync a
// directory, which only weakens durability there.
async function syncDir(dir: string) {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    /* not supported here */
  }
}
