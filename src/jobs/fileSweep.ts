// The orphan-file sweep (src/services/files.ts, docs/files.md): once when the server starts and
// every hour, remove stored bytes no file row points at and temporary files of writes a crash
// cut short, older than the grace period. Safe alongside uploads and in several processes.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/connection.ts';
import type { FileStorage } from '../storage/storage.ts';
import { sweepOrphanFiles } from '../services/files.ts';
import type { JobRun } from '../metrics.ts';
import { startPeriodic } from './periodic.ts';

/** Starts the sweep: a first run now (firstRun settles when it is done), then hourly. */
export function startFileSweep(
  db: Database,
  storage: FileStorage,
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>,
  onRun?: (run: JobRun) => void,
) {
  return startPeriodic(
    {
      name: 'file sweep',
      message: 'file sweep removed orphan bytes',
      work: async () => {
        const r = await sweepOrphanFiles({ db: db.kysely, storage, log });
        return { entries: r.removed + r.incomplete, fields: { ...r } };
      },
    },
    log,
    onRun,
  );
}
