// The bench database: where it is (DATABASE_URL, or the database BENCH_DB on DATABASE_URL's
// server), creating or dropping it, and the bench book's marker (table bench_meta).
import pg from 'pg';

export const BOOK_BUSINESS = 'Bench book';

/** What `npm run bench -- book` leaves in bench_meta: the HTTP benches read their keys from it. */
export interface BookInfo {
  business_id: string;
  timezone: string;
  keys: { read: string; full: string };
  scale: number;
  /** the business's calendar day when the book was built */
  built_for: string;
  built_at: string;
  build_seconds: number;
  counts: Record<string, number>;
}

export function benchUrl(): string {
  const raw = process.env.DATABASE_URL?.trim();
  if (!raw) {
    console.error(
      'set DATABASE_URL to a PostgreSQL database (e.g. postgres://postgres@127.0.0.1:5432/lending_bench), or to a server and BENCH_DB=name',
    );
    process.exit(2);
  }
  const name = process.env.BENCH_DB?.trim();
  if (!name) return raw;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
    console.error(`BENCH_DB=${name}: use lower-case letters, digits and _`);
    process.exit(2);
  }
  const u = new URL(raw);
  u.pathname = `/${name}`;
  return u.toString();
}

export function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name) throw new Error(`${url} names no database`);
  return name;
}

/** The same server's maintenance database, to create or drop the bench database from. */
function maintenanceUrl(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

async function onMaintenance<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: maintenanceUrl(url) });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Creates the database if it does not exist; true when it was created now. */
export function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  return onMaintenance(url, async (c) => {
    const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    await c.query(`CREATE DATABASE ${ident(name)}`);
    return true;
  });
}

export function dropDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  return onMaintenance(url, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
  });
}

export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The finished book's marker, or null (no marker table, or a build that never finished). */
export async function readBook(c: pg.Client): Promise<BookInfo | null> {
  const t = await c.query<{ t: string | null }>(`SELECT to_regclass('public.bench_meta')::text AS t`);
  if (!t.rows[0]?.t) return null;
  const r = await c.query<{ value: BookInfo }>(`SELECT value FROM bench_meta WHERE key = 'book'`);
  return r.rows[0]?.value ?? null;
}

/** The book of the bench database, or exit with what to run first. */
export async function requireBook(url: string): Promise<BookInfo> {
  const book = await withClient(url, readBook).catch((err: unknown) => {
    console.error(`cannot read the bench book in ${databaseName(url)}: ${(err as Error).message}`);
    process.exit(2);
  });
  if (!book) {
    console.error(`no bench book in database ${databaseName(url)}: build it first with npm run bench -- book`);
    process.exit(2);
  }
  return book;
}
