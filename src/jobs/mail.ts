// The mail job (docs/notifications.md): every few seconds, send the queued e-mails that are due.
// Any number of processes may run it on one PostgreSQL database: a claim is a lease (SKIP
// LOCKED), and a process killed mid-send leaves its claims to the others once the lease passes.
// Nothing runs without SMTP_URL.
import type { JobRun } from '../metrics.ts';
import type { Mailer } from '../mail/transport.ts';
import { smtpMailer } from '../mail/transport.ts';
import { deliverDueNotifications } from '../services/notifications.ts';
import type { JobDeps } from './index.ts';

const EVERY_MS = 5_000;

export function startMailDelivery(
  { db, config, log, clock }: Pick<JobDeps, 'db' | 'config' | 'log' | 'clock'>,
  onRun: (run: JobRun) => void = () => {},
  mailer: Mailer | null = config.mail ? smtpMailer(config.mail) : null,
): () => Promise<void> {
  if (!config.mail || !mailer) return async () => {};
  const deps = { db, mailer, maxAttempts: config.mail.maxAttempts };
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = () => {
    if (running || stopped) return;
    running = (async () => {
      const started = Date.now();
      try {
        const pass = await deliverDueNotifications(deps, { now: clock(), stop: () => stopped });
        if (pass.failed) log.warn({ failed: pass.failed }, 'e-mails failed for good');
        onRun({ ms: Date.now() - started, ok: true, entries: pass.attempted });
      } catch (err) {
        if (!stopped) {
          log.error({ err }, 'mail delivery failed');
          onRun({ ms: Date.now() - started, ok: false });
        }
      }
    })().finally(() => {
      running = null;
    });
  };
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  run();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
    mailer.close();
  };
}
