// PGlite has no lock of its own: two processes on one data directory corrupt it silently.
// The first process to open a data directory holds an exclusive lock until it exits; a second
// one gets DataDirBusyError (the command line then talks to the holder over its admin socket).
//
// The lock must free itself the moment its holder dies (kill -9, a crash, the OOM killer), so a
// restart is as fast as a normal start. Two layers:
// - On Linux, a listening Unix socket in the abstract namespace named after the directory: the
//   kernel refuses a second listener while the holder lives and releases the name when it dies.
//   No file is left behind, so there is nothing stale to wait for.
// - A lock file in the directory naming the holder (host, pid), with its mtime refreshed every
//   few seconds. It guards what the abstract name cannot see: another host or container
//   sharing the directory (a network volume), and systems without abstract sockets, where a
//   holder on this host is checked by its pid instead. Only a file of another host waits for
//   staleness.
import { createHash } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { createServer, type Server } from 'node:net';

export class DataDirBusyError extends Error {
  readonly dataDir: string;
  constructor(dataDir: string) {
    super(`the data directory ${dataDir} is in use by another lending process`);
    this.dataDir = dataDir;
  }
}

const HEARTBEAT_MS = 5_000;
/** A lock file of another host not refreshed for this long belongs to a dead holder. */
const STALE_MS = 15_000;

interface Holder {
  host: string;
  pid: number;
}

/** Listens on the directory's abstract name; null where abstract sockets do not exist. */
async function holdAbstractName(dir: string): Promise<Server | null> {
  if (process.platform !== 'linux') return null;
  const name = `\0lending-data-dir:${createHash('sha256').update(dir).digest('hex')}`;
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new DataDirBusyError(dir) : err),
    );
    server.listen(name, () => {
      server.unref(); // holding the name must not keep the process alive
      resolve(server);
    });
  });
}

function readHolder(file: string): Holder | null {
  try {
    const h = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>;
    return typeof h.host === 'string' && typeof h.pid === 'number' ? { host: h.host, pid: h.pid } : null;
  } catch {
    return null; // absent, or cut short by a crash while being written: nobody holds it
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the lock file names a holder that may still be alive. */
function heldByAnother(file: string, abstractHeld: boolean): boolean {
  const h = readHolder(file);
  if (!h) return false;
  if (h.host === hostname()) {
    // with the abstract name ours, no process on this host holds the directory
    return !abstractHeld && h.pid !== process.pid && isAlive(h.pid);
  }
  try {
    return Date.now() - statSync(file).mtimeMs < STALE_MS;
  } catch {
    return false;
  }
}

export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  mkdirSync(dataDir, { recursive: true });
  const dir = realpathSync(dataDir);
  const file = `${dir}/.lock`;
  let server: Server | null;
  try {
    server = await holdAbstractName(dir);
  } catch (err) {
    if (err instanceof DataDirBusyError) throw new DataDirBusyError(dataDir);
    throw err;
  }
  if (heldByAnother(file, server !== null)) {
    server?.close();
    throw new DataDirBusyError(dataDir);
  }
  const me: Holder = { host: hostname(), pid: process.pid };
  const content = JSON.stringify(me);
  if (!server) {
    // no abstract name: O_EXCL decides between starters (a dead holder's file was found stale
    // above; two starters racing over it is the one window this fallback leaves)
    try {
      closeSync(openSync(file, 'wx'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      unlinkSync(file);
      try {
        closeSync(openSync(file, 'wx'));
      } catch {
        throw new DataDirBusyError(dataDir);
      }
    }
  }
  writeFileSync(file, content);

  const heartbeat = setInterval(() => {
    if (readHolder(file)?.pid !== me.pid || readHolder(file)?.host !== me.host) {
      // another process took the directory (a holder of another host declared us stale): stop
      // at once rather than write the same files
      console.error(`fatal: lost the lock on ${dataDir}`);
      process.exit(70);
    }
    const now = new Date();
    try {
      utimesSync(file, now, now);
    } catch {}
  }, HEARTBEAT_MS);
  heartbeat.unref();

  let released = false;
  return async () => {
    if (released) return;
    released = true;
    clearInterval(heartbeat);
    if (readHolder(file)?.pid === me.pid) {
      try {
        unlinkSync(file);
      } catch {}
    }
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  };
}
