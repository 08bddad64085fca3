// The orphan-file sweep (src/services/files.ts, docs/files.md): once when the server starts and
// every hour, remove stored bytes no file row points at and temporary files of writes a crash
// cut short, older than the grace period. Safe alongside uploads and in several processes.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/connection.ts';
import type { FileStorage } from '../storage/storage.ts';
import { sweepOrphanFiles } from '../services/files.ts';
import type { JobRun } from '../metrics.ts';

const EVERY_MS = 60 * 60 * 1000;

/** Starts the sweep: a first run now (firstRun settles when it is done), then hourly. */
export function startFileSweep(
  db: Database,
  storage: FileStorage,
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>,
  onRun: (run: JobRun) => void = () => {},
) {
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = (): Promise<void> => {
    if (running) return running;
    if (stopped) return Promise.resolve();
    const started = Date.now();
    running = sweepOrphanFiles({ db: db.kysely, storage, log })
      .then((r) => {
        if (r.removed || r.incomplete) log.info(r, 'file sweep removed orphan bytes');
        onRun({ ms: Date.now() - started, ok: true, entries: r.removed + r.incomplete });
      })
      .catch((err: unknown) => {
        if (stopped) return;
        log.error({ err }, 'file sweep failed');
        onRun({ ms: Date.now() - started, ok: false });
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const firstRun = run();
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return {
    firstRun,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
