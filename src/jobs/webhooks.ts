// The webhook delivery job (src/services/webhooks.ts, docs/webhooks.md): every second, turn new
// events into deliveries and send what is due; hourly, delete deliveries delivered more than 30
// days ago. Any number of processes may run it on one
// PostgreSQL database: they share the work (SKIP LOCKED), and a process killed mid-send leaves its
// deliveries to the others once their lease has passed. WEBHOOKS=off keeps a process out of it.
import type { JobDeps } from './index.ts';
import type { JobRun } from '../metrics.ts';
import { deliverDue, dispatch, pendingDeliveries, sweepDeliveries, type WebhookDeps } from '../services/webhooks.ts';

const EVERY_MS = 1_000;
/** the backlog gauge is counted every this many runs */
const BACKLOG_EVERY = 10;
/** deliveries delivered long ago are swept every this many runs (hourly), the first run included */
const SWEEP_EVERY = 3_600;

/**
 * Starts the job (nothing with WEBHOOKS=off). The function returned stops it: no new run, no new
 * claim; what it returns settles once the run under way has recorded its attempts.
 */
export function startWebhookDelivery(
  { db, config, log, clock, metrics }: Pick<JobDeps, 'db' | 'config' | 'log' | 'clock' | 'metrics'>,
  onRun: (run: JobRun) => void = () => {},
): () => Promise<void> {
  if (!config.webhooks) return async () => {};
  const deps: WebhookDeps = { db, config, clock, log, metrics };
  let running: Promise<void> | null = null;
  let stopped = false;
  let runs = 0;
  const run = () => {
    if (running || stopped) return;
    running = once().finally(() => {
      running = null;
    });
  };
  const once = async () => {
    const started = Date.now();
    try {
      await dispatch(deps);
      const pass = await deliverDue(deps, { stop: () => stopped });
      const n = runs++;
      if (metrics && n % BACKLOG_EVERY === 0) metrics.webhookBacklog(await pendingDeliveries(db));
      if (n % SWEEP_EVERY === 0) {
        const swept = await sweepDeliveries(db, clock());
        if (swept) log.info({ deleted: swept }, 'webhook sweep deleted deliveries delivered long ago');
      }
      onRun({ ms: Date.now() - started, ok: true, entries: pass.attempted });
    } catch (err) {
      if (!stopped) {
        log.error({ err }, 'webhook delivery failed');
        onRun({ ms: Date.now() - started, ok: false });
      }
    }
  };
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
