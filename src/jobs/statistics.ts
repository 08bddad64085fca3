// Embedded only: the planner's statistics refreshed when the server starts and every hour
// (src/db/maintenance.ts says why PostgreSQL needs none of this).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/connection.ts';
import { refreshStatistics } from '../db/maintenance.ts';

const EVERY_MS = 60 * 60 * 1000;

export function startStatistics(db: Database, log: Pick<FastifyBaseLogger, 'error'>): () => void {
  if (db.mode !== 'embedded') return () => {};
  let stopped = false;
  const run = () => {
    if (!stopped) refreshStatistics(db).catch((err: unknown) => !stopped && log.error({ err }, 'ANALYZE failed'));
  };
  run();
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
