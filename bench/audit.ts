// Audit list: GET /api/logs with every combination of the filters table_name, action
// and record_id (none, each, every pair, all three) at offsets from 0 to 10,000, and by cursor
// from random depths of the whole log (none, table_name, action, both), equally often, through
// the real server, against the database's ceiling for the same statement (the page and its total
// in one statement), prepared, on the same targets.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- audit [--duration 15] [--connections 16] [--json]
//
// Needs the bench book (npm run bench -- book) in that database. Requests that take seconds are
// waited for (timeout 120 s), so a slow list shows as a low rate and a high p50, not as errors.
import { auditCursor } from '../src/services/audit.ts';
import type { AuditFilters as Filters } from '../src/db/repositories/audit.ts';
import { runBench } from './lib/harness.ts';
import { AUDIT_LIST, type AuditFilters } from './lib/statements.ts';

interface Target extends Record<string, unknown> {
  combo: number;
  k: number;
  table_name: string | null;
  action: string | null;
  record_id: string | null;
  off: number;
  /** a cursor's place (combos 8 to 11): an entry anywhere in the log */
  ck: string | null;
  cid: string | null;
}

/** combo bits: 1 table_name, 2 action, 4 record_id (offsets); 8 by cursor (with bits 1 and 2) */
const filtersOf = (combo: number): AuditFilters => ({
  table: (combo & 1) !== 0,
  action: (combo & 2) !== 0,
  record: (combo & 4) !== 0,
  cursor: (combo & 8) !== 0,
});
const COMBOS = 12;

function script(combo: number, count: number) {
  const f = filtersOf(combo);
  const cols = [
    f.table && 'table_name AS tn',
    f.action && 'action AS ac',
    f.record && 'record_id AS rid',
    f.cursor ? 'ck, cid' : 'off',
  ]
    .filter(Boolean)
    .join(', ');
  return `\\set k random(1, ${count})
SELECT ${cols} FROM bench_targets_audit WHERE combo = ${combo} AND k = :k \\gset
${AUDIT_LIST(f)}
`;
}

// records that have audit rows (clients, credits, installments, ledger entries), drawn at random
const sample = (table: string) =>
  `(SELECT '${table}' AS t, id FROM ${table} WHERE business_id = $1
      AND random() < least(1, $2::int / 2.0 / greatest((SELECT reltuples FROM pg_class WHERE oid = '${table}'::regclass), 1)) LIMIT $2::int / 8)`;

await runBench<Target>({
  name: 'audit',
  work: 'GET /api/logs',
  key: 'read',
  targetKey: ['combo'],
  targets: `
    WITH rec AS (
      SELECT row_number() OVER (ORDER BY random())::int AS i, t, id
        FROM (${['clients', 'credits', 'installments', 'ledger'].map(sample).join(' UNION ALL ')}) r),
    n AS (SELECT greatest(count(*), 1) AS n FROM rec),
    ent AS (
      SELECT row_number() OVER (ORDER BY random())::int AS i,
             to_char(changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ck, id AS cid
        FROM (SELECT changed_at, id FROM audit_log TABLESAMPLE SYSTEM (0.2) WHERE business_id = $1 LIMIT $2::int) e),
    m AS (SELECT greatest(count(*), 1) AS m FROM ent),
    g AS (SELECT g, (g - 1) % ${COMBOS} AS combo, ((g - 1) / ${COMBOS} + 1)::int AS k, random() AS u1, random() AS u2,
                 (floor(random() * 1001) * 10)::int AS off
            FROM generate_series(1, $2::int) g)
    SELECT g.combo, g.k,
           CASE WHEN g.combo & 1 = 1 THEN
             CASE WHEN g.combo & 4 = 4 THEN r.t
                  ELSE (ARRAY['clients', 'credits', 'installments', 'ledger', 'credit_configs', 'branches'])[1 + floor(g.u1 * 6)::int] END END AS table_name,
           CASE WHEN g.combo & 2 = 2 THEN CASE WHEN g.u2 < 0.7 THEN 'INSERT' WHEN g.u2 < 0.95 THEN 'UPDATE' ELSE 'DELETE' END END AS action,
           CASE WHEN g.combo & 4 = 4 THEN r.id END AS record_id,
           CASE WHEN g.combo & 8 = 0 THEN g.off ELSE 0 END AS off,
           CASE WHEN g.combo & 8 = 8 THEN e.ck END AS ck,
           CASE WHEN g.combo & 8 = 8 THEN e.cid END AS cid
      FROM g CROSS JOIN n CROSS JOIN m
      LEFT JOIN rec r ON r.i = 1 + (g.g % n.n)
      LEFT JOIN ent e ON e.i = 1 + (g.g % m.m)`,
  request: (t, book) => {
    const q = new URLSearchParams();
    if (t.table_name) q.set('table_name', t.table_name);
    if (t.action) q.set('action', t.action);
    if (t.record_id) q.set('record_id', t.record_id);
    if (t.ck && t.cid) {
      const f: Filters = {
        ...(t.table_name ? { tableName: t.table_name } : {}),
        ...(t.action ? { action: t.action as Filters['action'] } : {}),
      };
      q.set('cursor', auditCursor(book.business_id, f, { changedAt: t.ck, id: t.cid }, 0));
    } else {
      q.set('offset', String(t.off));
    }
    return { method: 'GET', path: `/api/logs?${q}` };
  },
  ceilings: (_book, targets) => {
    const counts = new Map<number, number>();
    for (const t of targets) counts.set(t.combo, (counts.get(t.combo) ?? 0) + 1);
    return [
      {
        label: "the app's statement",
        scripts: [...counts].map(([combo, count]) => ({
          name: `combo${combo}`,
          text: script(combo, count),
          weight: count,
        })),
      },
    ];
  },
});
