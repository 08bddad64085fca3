// The server's scheduled jobs, listed here and started by src/server.ts (the webhook delivery job
// too: every second). Each must be safe when
// several processes run it at once (PostgreSQL: SKIP LOCKED or idempotent work; embedded: one
// process owns the database).
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import type { FileStorage } from '../storage/storage.ts';
import type { Clock } from '../domain/index.ts';
import { startAccrualSchedule } from './accrual.ts';
import { startFileSweep } from './fileSweep.ts';
import { startIdempotencySweep } from './idempotencySweep.ts';
import { startSessionSweep } from './sessionSweep.ts';
import { startStatistics } from './statistics.ts';
import { startWebhookDelivery } from './webhooks.ts';
import { startMailDelivery } from './mail.ts';
import { startPaymentImports } from './paymentImports.ts';
import { startSummaryFigures } from './summaryFigures.ts';
import type { JobRun, Metrics } from '../metrics.ts';

export interface JobDeps {
  db: Database;
  config: Config;
  storage: FileStorage;
  log: FastifyBaseLogger;
  /** where the jobs' now comes from */
  clock: Clock;
  /** where each run's duration, entries and outcome are counted */
  metrics?: Metrics | null;
}

export interface Job {
  /** also its `job` label in the metrics */
  name: string;
  /** starts the job, which reports each run to onRun; the function returned stops it */
  start(deps: JobDeps, onRun: (run: JobRun) => void): () => void;
}

export const JOBS: readonly Job[] = [
  {
    name: 'accrual',
    start: ({ db, config, log, clock }, onRun) => startAccrualSchedule(db, config, log, clock, onRun),
  },
  { name: 'file_sweep', start: ({ db, storage, log }, onRun) => startFileSweep(db, storage, log, onRun).stop },
  { name: 'statistics', start: ({ db, log }, onRun) => startStatistics(db, log, onRun) },
  {
    name: 'idempotency_sweep',
    start: ({ db, config, log }, onRun) => startIdempotencySweep(db, config.idempotencyTtlHours, log, onRun).stop,
  },
  {
    name: 'session_sweep',
    start: ({ db, config, clock, log }, onRun) => startSessionSweep(db, config, clock, log, onRun).stop,
  },
  { name: 'webhooks', start: (deps, onRun) => startWebhookDelivery(deps, onRun) },
  { name: 'mail', start: (deps, onRun) => startMailDelivery(deps, onRun) },
  { name: 'payment_imports', start: (deps, onRun) => startPaymentImports(deps, onRun) },
  { name: 'summary_figures', start: ({ db, clock, log }, onRun) => startSummaryFigures(db, clock, log, onRun) },
];

/** Starts one job, its runs counted in the metrics; the function returned stops it. */
export function startJob(job: Job, deps: JobDeps): () => void {
  return job.start(deps, (run) => deps.metrics?.job(job.name, run));
}

/** Starts every job (none with JOBS=off); the function returned stops them all. */
export function startJobs(deps: JobDeps): () => void {
  if (!deps.config.jobs) return () => {};
  const stops = JOBS.map((job) => startJob(job, deps));
  return () => {
    for (const stop of stops) stop();
  };
}
