// The client search at 100,000 clients, and the staff console's main API calls on that book: each
// request one at a time (a person typing, not a crowd), p50/p95 of the real server's answer time,
// against the same SQL the app runs, sent with a bare pg client (the items and the count side by
// side on two connections, as src/db/repositories/page.ts does). No credits are made: the book is
// one business, "Search bench", with --clients clients (and their audit rows), in DATABASE_URL,
// added once and found again by the next run. It lives beside anything else in that database
// (tests isolate themselves by business), so a test database will do.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/wt_console npm run bench -- search [--clients 100000] [--requests 200] [--json]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { openPostgres } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { createApiKey } from '../src/db/repositories/apiKeys.ts';
import { listClients } from '../src/db/repositories/clients.ts';
import type { DB } from '../src/db/schema.ts';
import { benchUrl } from './lib/db.ts';
import { startServer } from './lib/server.ts';

const { values: o } = parseArgs({
  args: process.argv.slice(2),
  options: {
    clients: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '200' },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(o.clients);
const R = Number(o.requests);
if (!Number.isInteger(N) || N < 1000 || N > 2_000_000 || !Number.isInteger(R) || R < 10) {
  console.error('--clients must be a whole number from 1000 to 2000000, --requests at least 10');
  process.exit(2);
}
const BUSINESS = 'Search bench';
const url = benchUrl();

// ---- the book: one business, N clients with DNI, CUIT, names, email (as bench/book.ts names them)
const db = await openPostgres(url, 2);
await migrate(db);
const pool = new pg.Pool({ connectionString: url, max: 2 });
let bid: string | undefined = (
  await pool.query<{ id: string }>(
    `SELECT b.id FROM businesses b WHERE b.name = $1 AND (SELECT count(*) FROM clients c WHERE c.business_id = b.id) = $2 LIMIT 1`,
    [BUSINESS, N],
  )
).rows[0]?.id;
if (!bid) {
  const t0 = performance.now();
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query(`select set_config('app.actor', 'bench', true)`);
    const b = await c.query<{ id: string }>(
      `WITH b AS (INSERT INTO businesses (name, timezone) VALUES ($1, 'America/Argentina/Buenos_Aires') RETURNING id),
            s AS (INSERT INTO business_sequences (business_id) SELECT id FROM b)
       SELECT id FROM b`,
      [BUSINESS],
    );
    bid = b.rows[0]!.id;
    await c.query(
      `WITH n AS (SELECT ARRAY['María','José','Juan','Ana','Luis','Carlos','Laura','Jorge','Sofía','Martín','Lucía','Diego','Valentina','Pablo',
                               'Camila','Andrés','Florencia','Miguel','Gabriela','Fernando'] AS first,
                         ARRAY['González','Rodríguez','Gómez','Fernández','López','Díaz','Martínez','Pérez','García','Sánchez','Romero','Sosa',
                               'Álvarez','Torres','Ruiz','Ramírez','Flores','Benítez','Acosta','Medina','Herrera','Aguirre','Giménez'] AS last)
       INSERT INTO clients (business_id, first_name, last_name, dni, cuit, sex, street, street_number, city, state, country, zip_code, phone, email,
                            created_at, updated_at)
       SELECT $1, n.first[1 + g % 20], n.last[1 + (g * 7) % 23], (20000000 + g * 3)::text,
              (CASE WHEN g % 2 = 0 THEN '20' ELSE '27' END) || (20000000 + g * 3)::text || (g % 10)::text,
              CASE WHEN g % 2 = 0 THEN 'm' ELSE 'f' END, 'Rivadavia', (1 + g % 4000)::text, 'Buenos Aires', 'CABA', 'AR', '1000',
              '+54 9 11 ' || lpad(((g::bigint * 7919) % 100000000)::text, 8, '0'), 'cliente' || g || '@example.com',
              now() - interval '400 days' * (g::float8 / $2), now() - interval '400 days' * (g::float8 / $2)
         FROM generate_series(1, $2::int) g CROSS JOIN n`,
      [bid, N],
    );
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
  await pool.query('VACUUM (ANALYZE) clients, audit_log');
  console.log(`made business ${BUSINESS} with ${N} clients in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
const businessId = bid;
const { key } = await createApiKey(db.kysely, { businessId, scope: 'read', name: 'bench search' });
const someClient = (
  await pool.query<{ id: string }>(`SELECT id FROM clients WHERE business_id = $1 LIMIT 1`, [businessId])
).rows[0]!.id;

// ---- the queries: what a person types in Clientes (each request another one of its kind)
const pick = <T>(xs: T[], i: number) => xs[i % xs.length]!;
const dni = (i: number) => String(20000000 + ((i * 7919) % N) * 3 + 3);
const SURNAMES = ['gonzalez', 'perez', 'gimenez', 'alvarez', 'medina', 'sosa'];
const KINDS: { label: string; q: (i: number) => string; offset?: number }[] = [
  { label: 'DNI prefix (5 digits)', q: (i) => dni(i).slice(0, 5) },
  { label: 'DNI whole (8 digits)', q: (i) => dni(i) },
  { label: 'CUIT with dashes (20-2xxxxxxx)', q: (i) => `${i % 2 ? '27' : '20'}-${dni(i).slice(0, 6)}` },
  { label: 'name (surname)', q: (i) => pick(SURNAMES, i) },
  { label: 'name (surname), page 100', q: (i) => pick(SURNAMES, i), offset: 2475 },
  { label: 'as you type (2 letters)', q: (i) => pick(['go', 'pe', 'ma', 'so', 'me', 'al'], i) },
  { label: 'name (first and surname)', q: (i) => pick(['maria gon', 'juan per', 'laura dia', 'diego rom'], i) },
  { label: 'rare (one email)', q: (i) => `cliente${1 + ((i * 7919) % N)}@` },
  { label: 'no match (a rare name)', q: (i) => pick(['zzyzx', 'kowalski', 'nakamura'], i) },
];
const PAGES: { label: string; path: string }[] = [
  { label: 'Clientes: first page', path: '/api/clients?limit=25&offset=0' },
  { label: 'Clientes: page 100', path: '/api/clients?limit=25&offset=2475' },
  { label: 'client page: the client', path: `/api/clients/${someClient}` },
  { label: "client page: the client's credits", path: `/api/clients/${someClient}/credits` },
  { label: 'Inicio: summary', path: '/api/reports/summary' },
  { label: 'Cobranzas: worklist', path: '/api/installments?overdue=true&limit=25&offset=0' },
  { label: 'Auditoría: first page', path: '/api/logs?limit=50' },
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

const server = await startServer(url);
async function get(path: string): Promise<{ ms: number; total?: number }> {
  const t0 = performance.now();
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const body = await res.text();
  const ms = performance.now() - t0;
  if (!res.ok) throw new Error(`GET ${path} answered ${res.status}: ${body.slice(0, 300)}`);
  const total = (JSON.parse(body) as { total?: number }).total;
  return { ms, ...(total === undefined ? {} : { total }) };
}

// the SQL the app runs for a search, captured from Kysely's log as it runs the repository function
const captured: CompiledQuery[] = [];
const capture = new Kysely<DB>({
  dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }),
  log: (e) => void captured.push(e.query),
});
async function sqlOf(q: string, offset: number): Promise<CompiledQuery[]> {
  captured.length = 0;
  await listClients(capture, businessId, { q, limit: 25, offset });
  return [...captured];
}
const bare = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
await Promise.all(bare.map((c) => c.connect()));

interface Line {
  label: string;
  example: string;
  app_p50: number;
  app_p95: number;
  sql_p50?: number;
  sql_p95?: number;
  matches?: number;
}
const lines: Line[] = [];
const loadAtStart = loadavg();
try {
  for (const k of KINDS) {
    const app: number[] = [];
    const direct: number[] = [];
    let matches = 0;
    for (let i = 0; i < R + 10; i++) {
      const q = k.q(i);
      const r = await get(`/api/clients?q=${encodeURIComponent(q)}&limit=25&offset=${k.offset ?? 0}`);
      const stmts = await sqlOf(q, k.offset ?? 0);
      const t0 = performance.now();
      // unnamed statements, as the app's pool sends them (planned with the values, so a LIKE prefix can use an index)
      await Promise.all(stmts.map((s, j) => bare[j % 2]!.query(s.sql, [...s.parameters])));
      const d = performance.now() - t0;
      if (i >= 10) {
        // the first 10 warm the caches
        app.push(r.ms);
        direct.push(d);
        matches += r.total ?? 0;
      }
    }
    lines.push({
      label: k.label,
      example: k.offset ? `${k.q(11)}, offset ${k.offset}` : k.q(11),
      app_p50: pct(app, 50),
      app_p95: pct(app, 95),
      sql_p50: pct(direct, 50),
      sql_p95: pct(direct, 95),
      matches: Math.round(matches / R),
    });
  }
  for (const p of PAGES) {
    const app: number[] = [];
    for (let i = 0; i < Math.min(R, 50) + 5; i++) {
      const r = await get(p.path);
      if (i >= 5) app.push(r.ms);
    }
    lines.push({ label: p.label, example: p.path, app_p50: pct(app, 50), app_p95: pct(app, 95) });
  }
} finally {
  await server.stop();
  await Promise.all(bare.map((c) => c.end()));
  await capture.destroy();
  await pool.end();
  await db.close();
}

const f = (v?: number) => (v === undefined ? '–' : v.toFixed(1));
const la = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
console.log(`\n${N} clients, ${R} requests a search kind, one at a time (ms)`);
console.log(`load average (1, 5, 15 min): ${la(loadAtStart)} at the start, ${la(loadavg())} at the end\n`);
console.log('| request | example | app p50 | app p95 | same SQL p50 | same SQL p95 | app/SQL (p50) | matches |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|');
for (const l of lines)
  console.log(
    `| ${l.label} | \`${l.example}\` | ${f(l.app_p50)} | ${f(l.app_p95)} | ${f(l.sql_p50)} | ${f(l.sql_p95)} | ${
      l.sql_p50 === undefined ? '–' : (l.app_p50 / l.sql_p50).toFixed(2)
    } | ${l.matches ?? '–'} |`,
  );
if (o.json) console.log(JSON.stringify({ clients: N, requests: R, lines }));
