// The skeleton of the periodic jobs (the hourly sweeps of files, idempotency keys and sessions, the
// planner's statistics, the summary's figures): a first run when the server starts, then one every
// interval; a run never overlaps the previous one (a tick during a run gets that run); each run is
// reported to onRun (the metrics) and, when it did something, logged. A failure is logged and
// reported, and the next tick tries again.
import type { FastifyBaseLogger } from 'fastify';
import type { JobRun } from '../metrics.ts';

const HOUR_MS = 60 * 60 * 1000;

/** What one run did: how many entries it handled, and the fields of the line logged when there were any. */
export interface RunResult {
  entries: number;
  fields: Record<string, unknown>;
}

export interface PeriodicJob {
  /** names the job in the failure's log line */
  name: string;
  /** the line logged after a run that did something (entries > 0) */
  message: string;
  /** between two runs' starts; an hour when not given */
  everyMs?: number;
  work: () => Promise<RunResult>;
}

export interface Periodic {
  /** settles when the first run (started at once) is done */
  firstRun: Promise<void>;
  stop(): void;
}

/** Starts the job's work now and every interval. */
export function startPeriodic(
  { name, message, everyMs = HOUR_MS, work }: PeriodicJob,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
  onRun: (run: JobRun) => void = () => {},
): Periodic {
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
  const timer = setInterval(run, everyMs);
  timer.unref();
  return {
    firstRun,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
