// PGlite has no lock of its own: two processes on one data directory corrupt it silently.
// The first process to open a data directory holds an exclusive lock until it exits; a second
// one gets DataDirBusyError (the command line then talks to the holder over its admin socket).
import { mkdirSync } from 'node:fs';
import lockfile from 'proper-lockfile';

export class DataDirBusyError extends Error {
  constructor(readonly dataDir: string) {
    super(`the data directory ${dataDir} is in use by another lending process`);
  }
}

export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  mkdirSync(dataDir, { recursive: true });
  try {
    // stale: a lock whose holder died is taken over after 15 s without a heartbeat
    return await lockfile.lock(dataDir, {
      lockfilePath: `${dataDir}/.lock`,
      stale: 15_000,
      update: 5_000,
      realpath: false,
      onCompromised: (err) => {
        // losing the lock means another process may write the same files: stop at once
        console.error(`fatal: lost the lock on ${dataDir}: ${err.message}`);
        process.exit(70);
      },
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirBusyError(dataDir);
    throw err;
  }
}
