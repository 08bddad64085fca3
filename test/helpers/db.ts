// The test database of this test process: the embedded PGlite in memory (TEST_DB=pglite, the
// default) or the PostgreSQL of TEST_DATABASE_URL (TEST_DB=postgres). Migrated once per process;
// tests isolate themselves by creating their own businesses, as tenants do.
import { after, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { openEmbedded, openPostgres, type Database } from '../../src/db/connection.ts';
import { migrate, migrationFiles } from '../../src/db/migrate.ts';

let shared: Promise<Database> | null = null;

// registered at import time, so on the root test: the process ends when its tests do
after(async () => {
  if (shared) await (await shared).close();
});

export const testDbKind = () => (process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite');

export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
  return url;
}

/**
 * A fresh, migrated database connection (the caller closes it). In memory, from the migrated image
 * of TEST_PGLITE_IMAGE when the runner gives one (the build's dist/db/empty-database.tar.gz), else
 * from an initdb.
 */
export async function openTestDb(): Promise<Database> {
  const image = process.env.TEST_PGLITE_IMAGE;
  const db =
    testDbKind() === 'postgres'
      ? await openPostgres(testDatabaseUrl())
      : await openEmbedded(null, image ? { image: new Blob([readFileSync(image)]) } : {});
  await migrate(db);
  return db;
}

/** The process-wide test database (closed when the process ends). */
export function sharedTestDb(): Promise<Database> {
  shared ??= openTestDb();
  return shared;
}

/**
 * An embedded database of its own (closed after the test) migrated by hand up to just before
 * `migration` (its number, e.g. '016'), as a database of that time was: a migration's test writes
 * the old shapes into it, then runs `migrate` and checks what the migration made of them.
 */
export async function embeddedBefore(t: TestContext, migration: string): Promise<Database> {
  const db = await openEmbedded(null);
  t.after(() => db.close());
  const dir = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));
  const before = migrationFiles().filter((f) => f < migration);
  await db.session(async (s) => {
    for (const f of before) await s.exec(readFileSync(dir + f, 'utf8'));
    await s.exec(`CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
                  INSERT INTO schema_migrations (name) VALUES ${before.map((f) => `('${f}')`).join(', ')};`);
  });
  return db;
}
