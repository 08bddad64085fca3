// Embedded only: the planner's statistics refreshed when the server starts and every hour
// (src/db/maintenance.ts says why PostgreSQL needs none of this).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/connection.ts';
import { refreshStatistics } from '../db/maintenance.ts';
import type { JobRun } from '../metrics.ts';
import { startPeriodic } from './periodic.ts';

export function startStatistics(
  db: Database,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
  onRun?: (run: JobRun) => void,
): () => void {
  if (db.mode !== 'embedded') return () => {};
  return startPeriodic(
    {
      name: 'ANALYZE',
      message: 'planner statistics refreshed',
      work: async () => {
        await refreshStatistics(db);
        return { entries: 0, fields: {} };
      },
    },
    log,
    onRun,
  ).stop;
}
