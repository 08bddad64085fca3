// Plain SQL migrations, applied in name order, each in its own transaction. On PostgreSQL an
// advisory lock makes concurrent starters (several API processes, a CLI) apply each one once.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from './connection.ts';

const DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const LOCK_KEY = 727_411_001;

export function migrationFiles(): string[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
}

/** Applies pending migrations; returns the names applied now. */
export async function migrate(db: Database): Promise<string[]> {
  return db.session(async (s) => {
    await s
      .exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`)
      .catch(async (err) => {
        // two processes racing to create the table: the loser finds it there
        if (!/already exists|duplicate key/.test(String(err))) throw err;
      });
    const applied: string[] = [];
    for (const name of migrationFiles()) {
      await s.exec('BEGIN');
      try {
        if (db.mode === 'postgres') await s.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
        const done = await s.query('SELECT 1 FROM schema_migrations WHERE name = $1', [name]);
        if (done.length === 0) {
          await s.exec(readFileSync(DIR + name, 'utf8'));
          await s.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
          applied.push(name);
        }
        await s.exec('COMMIT');
      } catch (err) {
        await s.exec('ROLLBACK');
        throw err;
      }
    }
    return applied;
  });
}
