// The portfolio summary's per-credit figures kept for the day (migration 062, docs/reports.md
// "Per-credit figures kept for the day"): a read as of today stores what it works out, so without
// this job the first read of each business's day would be the slow one. Every few minutes, each
// business whose day changed since this process last refreshed it has its summary run once, on
// the primary, to store them. Several processes: a business is refreshed by one at a time (a try
// lock per business; the others skip it), and a refresh that finds the figures already valid only
// reads them. Figures made stale by a write later in the day are worked out again by the next read.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/connection.ts';
import type { Clock } from '../domain/index.ts';
import type { JobRun } from '../metrics.ts';
import { refreshDailySummaryFigures } from '../services/reports.ts';
import { startPeriodic } from './periodic.ts';

export function startSummaryFigures(
  db: Database,
  clock: Clock,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
  onRun?: (run: JobRun) => void,
): () => void {
  const lastDay = new Map<string, string>();
  return startPeriodic(
    {
      name: 'summary figures refresh',
      message: "summary figures stored for the businesses' new day",
      everyMs: 5 * 60 * 1000,
      work: async () => {
        const businesses = await refreshDailySummaryFigures(db, clock(), lastDay);
        return { entries: businesses, fields: { businesses } };
      },
    },
    log,
    onRun,
  ).stop;
}
