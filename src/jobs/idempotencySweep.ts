// The sweep of expired Idempotency-Keys (src/services/idempotency.ts): once when the server
// starts and every hour, delete the keys older than IDEMPOTENCY_TTL_HOURS. A key that old already
// counts as absent, so the sweep only reclaims space: running late, or in several processes at
// once (each skips the rows another is deleting), changes no answer.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/connection.ts';
import { sweepIdempotencyKeys } from '../services/idempotency.ts';
import type { JobRun } from '../metrics.ts';

const EVERY_MS = 60 * 60 * 1000;

/** Starts the sweep: a first run now (firstRun settles when it is done), then hourly. */
export function startIdempotencySweep(
  db: Database,
  ttlHours: number,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
  onRun: (run: JobRun) => void = () => {},
) {
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = (): Promise<void> => {
    if (running) return running;
    if (stopped) return Promise.resolve();
    const started = Date.now();
    running = sweepIdempotencyKeys(db.kysely, ttlHours)
      .then((deleted) => {
        if (deleted) log.info({ deleted }, 'idempotency sweep deleted expired keys');
        onRun({ ms: Date.now() - started, ok: true, entries: deleted });
      })
      .catch((err: unknown) => {
        if (stopped) return;
        log.error({ err }, 'idempotency sweep failed');
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
