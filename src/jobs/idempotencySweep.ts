// The sweep of expired Idempotency-Keys (src/services/idempotency.ts): once when the server
// starts and every hour, delete the keys older than IDEMPOTENCY_TTL_HOURS. A key that old already
// counts as absent, so the sweep only reclaims space: running late, or in several processes at
// once (each skips the rows another is deleting), changes no answer.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/connection.ts';
import { sweepIdempotencyKeys } from '../services/idempotency.ts';
import type { JobRun } from '../metrics.ts';
import { startPeriodic } from './periodic.ts';

/** Starts the sweep: a first run now (firstRun settles when it is done), then hourly. */
export function startIdempotencySweep(
  db: Database,
  ttlHours: number,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
  onRun?: (run: JobRun) => void,
) {
  return startPeriodic(
    {
      name: 'idempotency sweep',
      message: 'idempotency sweep deleted expired keys',
      work: async () => {
        const deleted = await sweepIdempotencyKeys(db.kysely, ttlHours);
        return { entries: deleted, fields: { deleted } };
      },
    },
    log,
    onRun,
  );
}
