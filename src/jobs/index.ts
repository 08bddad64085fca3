// The server's scheduled jobs, listed here and started by src/server.ts. Each must be safe when
// several processes run it at once (PostgreSQL: SKIP LOCKED or idempotent work; embedded: one
// process owns the database).
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import type { FileStorage } from '../storage/storage.ts';
import type { Clock } from '../domain/index.ts';
import { startAccrualSchedule } from './accrual.ts';
import { startFileSweep } from './fileSweep.ts';
import { startStatistics } from './statistics.ts';

export interface JobDeps {
  db: Database;
  config: Config;
  storage: FileStorage;
  log: FastifyBaseLogger;
  /** where the jobs' now comes from */
  clock: Clock;
}

export interface Job {
  name: string;
  /** starts the job; the function returned stops it */
  start(deps: JobDeps): () => void;
}

export const JOBS: readonly Job[] = [
  { name: 'accrual', start: ({ db, config, log, clock }) => startAccrualSchedule(db, config, log, clock) },
  { name: 'file sweep', start: ({ db, storage, log }) => startFileSweep(db, storage, log).stop },
  { name: 'statistics (embedded)', start: ({ db, log }) => startStatistics(db, log) },
];

/** Starts every job; the function returned stops them all. */
export function startJobs(deps: JobDeps): () => void {
  const stops = JOBS.map((job) => job.start(deps));
  return () => {
    for (const stop of stops) stop();
  };
}
