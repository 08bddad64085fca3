// Scheduled jobs of the server process. Each job must be safe when several processes run it at
// once (PostgreSQL: an advisory lock; embedded: one process owns the database).
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';

export type StopFn = () => void;
export type Scheduler = (db: Database, config: Config, log: FastifyBaseLogger) => StopFn;

const schedulers: Scheduler[] = [];

export function registerScheduler(s: Scheduler) {
  schedulers.push(s);
}

export function startSchedulers(db: Database, config: Config, log: FastifyBaseLogger): StopFn {
  const stops = schedulers.map((s) => s(db, config, log));
  return () => stops.forEach((stop) => stop());
}
