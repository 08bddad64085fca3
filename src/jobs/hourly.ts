// The skeleton of the hourly sweeps (files, idempotency keys, sessions): a first run when the
// server starts, then one every hour; a run never overlaps the previous one (a tick during a run
// gets that run); each run is reported to onRun (the metrics) and, when it did something, logged.
// A failure is logged and reported, and the next hour tries again.
import type { FastifyBaseLogger } from 'fastify';
import type { JobRun } from '../metrics.ts';

const EVERY_MS = 60 * 60 * 1000;

/** What one run did: how many entries it removed, and the fields of the line logged when it removed any. */
export interface SweepResult {
  entries: number;
  fields: Record<string, unknown>;
}

export interface HourlySweep {
  /** names the sweep in the failure's log line */
  name: string;
  /** the line logged after a run that removed something */
  message: string;
  work: () => Promise<SweepResult>;
}

export interface Sweep {
  /** settles when the first run (started at once) is done */
  firstRun: Promise<void>;
  stop(): void;
}

/** Starts the sweep's work now and hourly. */
export function startHourly(
  { name, message, work }: HourlySweep,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
  onRun: (run: JobRun) => void = () => {},
): Sweep {
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = (): Promise<void> => {
    if (running) return running;
    if (stopped) return Promise.resolve();
    const started = Date.now();
    running = work()
      .then((r) => {
        if (r.entries) log.info(r.fields, message);
        onRun({ ms: Date.now() - started, ok: true, entries: r.entries });
      })
      .catch((err: unknown) => {
        if (stopped) return;
        log.error({ err }, `${name} failed`);
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
