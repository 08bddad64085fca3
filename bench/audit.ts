// Audit list (contract 7): GET /api/logs with every combination of the filters table_name, action
// and record_id (none, each, every pair, all three; equally often) and offsets from 0 to 10,000,
// through the real server, against the database's ceiling for the same statements (key lookup, the
// page, the count), prepared, on the same targets.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- audit [--duration 15] [--connections 16] [--json]
//
// Needs the bench book (npm run bench -- book) in that database. Requests that take seconds are
// waited for (timeout 120 s), so a slow list shows as a low rate and a high p50, not as errors.
import { runBench } from './lib/harness.ts';
import { AUDIT_COUNT, AUDIT_PAGE, AUTH, type AuditFilters } from './lib/statements.ts';

interface Target extends Record<string, unknown> {
  combo: number;
  k: number;
  table_name: string | null;
  action: string | null;
  record_id: string | null;
  off: number;
}

/** combo bits: 1 table_name, 2 action, 4 record_id */
const filtersOf = (combo: number): AuditFilters => ({
  table: (combo & 1) !== 0,
  action: (combo & 2) !== 0,
  record: (combo & 4) !== 0,
});

function script(combo: number, count: number) {
  const f = filtersOf(combo);
  const cols = [f.table && 'table_name AS tn', f.action && 'action AS ac', f.record && 'record_id AS rid', 'off']
    .filter(Boolean)
    .join(', ');
  return `\\set k random(1, ${count})
SELECT ${cols} FROM bench_targets_audit WHERE combo = ${combo} AND k = :k \\gset
${AUTH}
${AUDIT_PAGE(f)}
${AUDIT_COUNT(f)}
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
    g AS (SELECT g, (g - 1) % 8 AS combo, ((g - 1) / 8 + 1)::int AS k, random() AS u1, random() AS u2, (floor(random() * 1001) * 10)::int AS off
            FROM generate_series(1, $2::int) g)
    SELECT g.combo, g.k,
           CASE WHEN g.combo & 1 = 1 THEN
             CASE WHEN g.combo & 4 = 4 THEN r.t
                  ELSE (ARRAY['clients', 'credits', 'installments', 'ledger', 'credit_configs', 'branches'])[1 + floor(g.u1 * 6)::int] END END AS table_name,
           CASE WHEN g.combo & 2 = 2 THEN CASE WHEN g.u2 < 0.7 THEN 'INSERT' WHEN g.u2 < 0.95 THEN 'UPDATE' ELSE 'DELETE' END END AS action,
           CASE WHEN g.combo & 4 = 4 THEN r.id END AS record_id,
           g.off
      FROM g CROSS JOIN n LEFT JOIN rec r ON r.i = 1 + (g.g % n.n)`,
  request: (t) => {
    const q = new URLSearchParams();
    if (t.table_name) q.set('table_name', t.table_name);
    if (t.action) q.set('action', t.action);
    if (t.record_id) q.set('record_id', t.record_id);
    q.set('offset', String(t.off));
    return { method: 'GET', path: `/api/logs?${q}` };
  },
  ceilings: (_book, targets) => {
    const counts = new Map<number, number>();
    for (const t of targets) counts.set(t.combo, (counts.get(t.combo) ?? 0) + 1);
    return [
      {
        label: "the app's 3 statements",
        scripts: [...counts].map(([combo, count]) => ({
          name: `combo${combo}`,
          text: script(combo, count),
          weight: count,
        })),
      },
    ];
  },
});
