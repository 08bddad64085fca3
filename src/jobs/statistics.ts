// Embedded only: the planner's statistics refreshed when the server starts and every hour
// (src/db/maintenance.ts says why PostgreSQL needs none of this).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/connection.ts';
import { refreshStatistics } from '../db/maintenance.ts';
import type { JobRun } from '../metrics.ts';

const EVERY_MS = 60 * 60 * 1000;

export function startStatistics(
  db: Database,
  log: Pick<FastifyBaseLogger, 'error'>,
  onRun: (run: JobRun) => void = () => {},
): () => void {
  if (db.mode !== 'embedded') return () => {};
  let stopped = false;
  const run = () => {
    if (stopped) return;
    const started = Date.now();
    refreshStatistics(db).then(
      () => onRun({ ms: Date.now() - started, ok: true }),
      (err: unknown) => {
        if (stopped) return;
        log.error({ err }, 'ANALYZE failed');
        onRun({ ms: Date.now() - started, ok: false });
      },
    );
  };
  run();
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
