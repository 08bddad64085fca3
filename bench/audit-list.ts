// The audit list's latency on any PostgreSQL database with a large log: every filter combination
// (none, table_name, action, record_id, each pair, all three) at random offsets from 0 to 10,000,
// and by cursor from random depths, through the real server over HTTP, driven by autocannon with
// --connections clients (each sends its next request when the previous one is answered); with
// --explain, EXPLAIN (ANALYZE, BUFFERS) of the statement the app runs for each.
// Needs no bench book: bench/sql/audit-rows.sql fills a log of any size (docs/benchmarks.md).
//
//   DATABASE_URL=postgres://… npm run bench -- audit-list [--business ID] [--requests 40] [--connections 1] [--explain]
//
// --business defaults to the business with the most audit entries. A read key is created for the
// run and revoked after it.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { createApiKey, revokeApiKey } from '../src/db/repositories/apiKeys.ts';
import { listAudit, type AuditFilters } from '../src/db/repositories/audit.ts';
import type { DB } from '../src/db/schema.ts';
import { AUDIT_FIELDS, auditCursor } from '../src/services/audit.ts';
import { benchUrl, databaseName } from './lib/db.ts';
import { startServer } from './lib/server.ts';

const { values: o } = parseArgs({
  args: process.argv.slice(2),
  options: {
    business: { type: 'string' },
    requests: { type: 'string', default: '40' },
    connections: { type: 'string', default: '1' },
    explain: { type: 'boolean', default: false },
  },
});
const perCase = Number(o.requests);
const connections = Number(o.connections);
if (!(perCase >= 1) || !(connections >= 1)) {
  console.error('--requests and --connections must be >= 1');
  process.exit(2);
}
const url = benchUrl();
const pool = new pg.Pool({ connectionString: url, max: 2 });
let captured: CompiledQuery | null = null;
const db = new Kysely<DB>({
  dialect: new PostgresDialect({ pool }),
  log: (e) => {
    if (e.level === 'query') captured = e.query;
  },
});
const q = async <R>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as R[];

const bid =
  o.business ??
  (
    await q<{ business_id: string }>(
      'SELECT business_id FROM audit_log_counts GROUP BY business_id ORDER BY sum(n) DESC LIMIT 1',
    )
  )[0]?.business_id;
if (!bid) throw new Error(`no audit entries in ${databaseName(url)}`);
const [{ n: size } = { n: '0' }] = await q<{ n: string }>(
  'SELECT sum(n) AS n FROM audit_log_counts WHERE business_id = $1',
  [bid],
);
console.log(
  `audit list on ${databaseName(url)}: business ${bid} with ${size} entries; ${perCase} requests a case, ${connections} at a time; load average ${loadavg()[0]!.toFixed(2)}`,
);

// filter values drawn from the log itself: entries anywhere in it (a block sample), so record ids exist
const sample = await q<{ table_name: string; action: string; record_id: string; changed_key: string; id: string }>(
  `SELECT table_name, action, record_id, to_char(changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS changed_key, id
     FROM audit_log TABLESAMPLE SYSTEM (0.05) WHERE business_id = $1 LIMIT 2000`,
  [bid],
);
if (sample.length < 10) throw new Error('the sample found too few entries: is the log large enough?');
const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;

/** combo bits: 1 table_name, 2 action, 4 record_id; values taken from one sampled entry */
function filtersFor(combo: number): { f: AuditFilters; at: (typeof sample)[number] } {
  const e = pick(sample);
  const f: AuditFilters = {};
  // alone, the table and the action are drawn independently (some pairs match nothing)
  if (combo & 1) f.tableName = combo & 4 ? e.table_name : pick(sample).table_name;
  if (combo & 2) f.action = (combo & 4 ? e.action : pick(['INSERT', 'UPDATE', 'DELETE'])) as AuditFilters['action'];
  if (combo & 4) f.recordId = e.record_id;
  return { f, at: e };
}
const NAMES = ['none', 'table', 'action', 'table+action', 'record', 'table+record', 'action+record', 'all three'];

function query(f: AuditFilters, extra: Record<string, string>): string {
  const p = new URLSearchParams();
  if (f.tableName) p.set('table_name', f.tableName);
  if (f.action) p.set('action', f.action);
  if (f.recordId) p.set('record_id', f.recordId);
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  return `/api/logs?${p}`;
}

const key = await createApiKey(db, { businessId: bid, scope: 'read', name: 'bench audit-list' });
const server = await startServer(url);
const rows: string[][] = [];
try {
  const get = async (path: string) => {
    const t0 = performance.now();
    const res = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key.key}` } });
    const body = (await res.json()) as { items: unknown[]; total: number; next_cursor: string | null };
    const ms = performance.now() - t0;
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return { ms, body };
  };
  await get('/api/logs'); // connections and the key cache warm
  for (let combo = 0; combo < 8; combo++) {
    for (const mode of ['offset', 'cursor'] as const) {
      // a record's entries are few: by cursor they are the same short list
      if (mode === 'cursor' && combo & 4) continue;
      const paths = Array.from({ length: perCase }, () => {
        const { f, at } = filtersFor(combo);
        const extra: Record<string, string> =
          mode === 'offset'
            ? { offset: String(Math.floor(Math.random() * 10_001)) }
            : {
                // the place of a random entry of the whole log: a random depth
                cursor: auditCursor(bid, f, { changedAt: at.changed_key, id: at.id }, 0),
              };
        return query(f, extra);
      });
      // the largest total of these requests, read once outside the measurement
      const totalSeen = Math.max(...(await Promise.all(paths.slice(0, 3).map(async (p) => (await get(p)).body.total))));
      let next = 0;
      // autocannon: `connections` clients, each sending its next request when the previous one is answered
      const started = performance.now();
      const r = await autocannon({
        url: server.baseUrl,
        connections,
        amount: paths.length,
        timeout: 120,
        headers: { authorization: `Bearer ${key.key}` },
        requests: [{ setupRequest: (req) => ({ ...req, method: 'GET', path: paths[next++ % paths.length]! }) }],
      });
      if (r.non2xx || r.errors) throw new Error(`${NAMES[combo]} ${mode}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      const rps = (1000 * r.requests.total) / (performance.now() - started);
      rows.push([
        NAMES[combo]!,
        mode === 'offset' ? 'offset 0–10,000' : 'cursor, any depth',
        r.latency.p50.toFixed(1),
        r.latency.p99.toFixed(1),
        r.latency.max.toFixed(1),
        rps.toFixed(0),
        String(totalSeen),
      ]);
    }
  }
} finally {
  await server.stop();
  await revokeApiKey(db, key.record.id);
}
console.log('');
console.log(
  `${'filters'.padEnd(14)} ${'paging'.padEnd(18)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'max ms'.padStart(7)} ${'req/s'.padStart(6)} ${'largest total'.padStart(14)}`,
);
for (const r of rows) {
  console.log(
    `${r[0]!.padEnd(14)} ${r[1]!.padEnd(18)} ${r[2]!.padStart(7)} ${r[3]!.padStart(7)} ${r[4]!.padStart(7)} ${r[5]!.padStart(6)} ${r[6]!.padStart(14)}`,
  );
}

if (o.explain) {
  // the statement of one request per case, as the repository builds it, analysed
  const e = pick(sample);
  const cases: [string, AuditFilters, { limit: number; offset: number; after?: { changedAt: string; id: string } }][] =
    [
      ['none, offset 10,000', {}, { limit: 50, offset: 10_000 }],
      ['table_name=installments, offset 10,000', { tableName: 'installments' }, { limit: 50, offset: 10_000 }],
      ['action=UPDATE, offset 10,000', { action: 'UPDATE' }, { limit: 50, offset: 10_000 }],
      [
        'table_name=credits&action=UPDATE, offset 10,000',
        { tableName: 'credits', action: 'UPDATE' },
        { limit: 50, offset: 10_000 },
      ],
      ['action=DELETE, offset 10,000', { action: 'DELETE' }, { limit: 50, offset: 10_000 }],
      [`record_id (${e.table_name}), offset 0`, { recordId: e.record_id }, { limit: 50, offset: 0 }],
      [
        `record_id&table_name&action, offset 0`,
        { recordId: e.record_id, tableName: e.table_name, action: e.action as AuditFilters['action'] },
        { limit: 50, offset: 0 },
      ],
      ['none, cursor at a random depth', {}, { limit: 50, offset: 0, after: { changedAt: e.changed_key, id: e.id } }],
      [
        'table_name=ledger, cursor at a random depth',
        { tableName: 'ledger' },
        { limit: 50, offset: 0, after: { changedAt: e.changed_key, id: e.id } },
      ],
    ];
  for (const [label, f, page] of cases) {
    await listAudit(db, bid, f, page, AUDIT_FIELDS);
    const c = captured as CompiledQuery | null;
    if (!c) continue;
    const plan = await q<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${c.sql}`, c.parameters as unknown[]);
    console.log(`\n-- ${label}\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
}
await db.destroy();
