// The sweep of what sign-ins leave behind (src/services/sessions.ts): once when the server starts
// and every hour, delete the sessions that have ended (either limit), the set-password links used
// or expired more than a day ago, and the sign-in counters whose window is over. Each already
// counts as absent, so the sweep only reclaims space: late, or in several processes at once, it
// changes no answer.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import type { Clock } from '../domain/index.ts';
import type { JobRun } from '../metrics.ts';
import { sessionPolicy, sweepSessions } from '../services/sessions.ts';
import { startPeriodic } from './periodic.ts';

export function startSessionSweep(
  db: Database,
  config: Config,
  clock: Clock,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
  onRun?: (run: JobRun) => void,
) {
  return startPeriodic(
    {
      name: 'session sweep',
      message: 'session sweep deleted ended sessions, spent links and old sign-in counters',
      work: async () => {
        const deleted = await sweepSessions(db, clock(), sessionPolicy(config));
        return { entries: deleted, fields: { deleted } };
      },
    },
    log,
    onRun,
  );
}
