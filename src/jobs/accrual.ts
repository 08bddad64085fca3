// The daily run's schedule in the server (the run itself: src/services/accrual.ts; on most days of
// a month it finds nothing to post and costs a few index reads):
// ACCRUAL_SCHEDULE (default hourly at :15), off when set to "off". protect: a run still going
// when the next one is due is not started twice in this process; other processes share the work
// through SKIP LOCKED.
import { Cron } from 'croner';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import { runAccrual } from '../services/accrual.ts';
import { systemClock, type Clock } from '../domain/index.ts';
import type { JobRun } from '../metrics.ts';

export function startAccrualSchedule(
  db: Database,
  config: Config,
  log: FastifyBaseLogger,
  clock: Clock = systemClock,
  onRun: (run: JobRun) => void = () => {},
): () => void {
  if (!config.accrualSchedule) return () => {};
  const job = new Cron(
    config.accrualSchedule,
    { protect: true, catch: (err) => log.error({ err }, 'accrual run failed') },
    async () => {
      const started = Date.now();
      let entries: number;
      try {
        entries = await run(started);
      } catch (err) {
        onRun({ ms: Date.now() - started, ok: false });
        throw err;
      }
      onRun({ ms: Date.now() - started, ok: true, entries });
    },
  );
  // the punitory entries posted
  async function run(started: number): Promise<number> {
    const results = await runAccrual(db, {
      actor: 'system:accrual',
      clock,
      mailConfigured: config.mail !== null,
      onError: (b, err) => log.error({ err, business_id: b.id }, 'accrual failed for a business'),
      onCredit: (r) =>
        r.kind === 'clamped'
          ? log.warn(
              { business_id: r.business_id, credit_id: r.credit_id },
              'punitory stopped at the storable maximum (999,999,999,999.99)',
            )
          : log.error(
              { err: r.error, business_id: r.business_id, credit_id: r.credit_id },
              'accrual failed for a credit: skipped, left for the next run',
            ),
    });
    const sum = (k: 'credits_accrued' | 'punitory_entries' | 'written_off' | 'clamped' | 'skipped') =>
      results.reduce((n, r) => n + r[k], 0);
    log.info(
      {
        businesses: results.length,
        credits: sum('credits_accrued'),
        entries: sum('punitory_entries'),
        written_off: sum('written_off'),
        clamped: sum('clamped'),
        skipped: sum('skipped'),
        ms: Date.now() - started,
      },
      'accrual run done',
    );
    return sum('punitory_entries');
  }
  return () => job.stop();
}
