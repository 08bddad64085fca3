// The payment-import job (src/services/paymentImports.ts, docs/payments.md "Importing payments"):
// every second, claim running imports and pay their pending lines. Any number of processes may run
// it on one PostgreSQL database: an import is claimed with a lease under FOR UPDATE SKIP LOCKED,
// and one left by a process that died is claimed again once its lease has passed.
import type { JobDeps } from './index.ts';
import type { JobRun } from '../metrics.ts';
import { processImports } from '../services/paymentImports.ts';

const EVERY_MS = 1_000;

export function startPaymentImports(
  { db, log, clock }: Pick<JobDeps, 'db' | 'log' | 'clock'>,
  onRun: (run: JobRun) => void = () => {},
): () => void {
  let running = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = true;
    const started = Date.now();
    processImports({ db, log, clock }, { stop: () => stopped })
      .then((n) => {
        if (n > 0) onRun({ ms: Date.now() - started, ok: true, entries: n });
      })
      .catch((err) => {
        log.error({ err }, 'payment import job failed');
        onRun({ ms: Date.now() - started, ok: false });
      })
      .finally(() => {
        running = false;
      });
  }, EVERY_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
