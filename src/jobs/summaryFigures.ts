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

const EVERY_MS = 5 * 60 * 1000;

export function startSummaryFigures(
  db: Database,
  clock: Clock,
  log: Pick<FastifyBaseLogger, 'error'>,
  onRun: (run: JobRun) => void = () => {},
): () => void {
  const lastDay = new Map<string, string>();
  let running = false;
  let stopped = false;
  const run = () => {
    if (running || stopped) return;
    running = true;
    const started = Date.now();
    refreshDailySummaryFigures(db, clock(), lastDay)
      .then(
        (entries) => onRun({ ms: Date.now() - started, ok: true, entries }),
        (err: unknown) => {
          if (stopped) return;
          log.error({ err }, 'summary figures refresh failed');
          onRun({ ms: Date.now() - started, ok: false });
        },
      )
      .finally(() => {
        running = false;
      });
  };
  run();
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
