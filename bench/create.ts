// Credit creation: POST /api/clients/:id/credits on random clients, active plans and branches of
// the bench book, through the real server with the full key, against the database's ceiling for
// the use case's transaction (the business's holidays read under their share lock, the client, the
// plan and branch share-locked, then the credit under
// the business's next number in one statement and its schedule with its ledger entries in
// another), on the same targets.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- create [--duration 15] [--connections 16] [--json]
//
// It writes to the book: every credit created is checked afterwards (numbers with no gap and no
// repeat, a schedule and one ledger entry per installment, every row audited).
import { HOLIDAY_LOCK } from '../src/db/repositories/holidays.ts';
import { runBench, type BenchContext } from './lib/harness.ts';
import { todaySql } from './lib/statements.ts';

interface Target extends Record<string, unknown> {
  k: number;
  client_id: string;
  plan_id: string;
  branch_id: string;
  n: number;
}

const lookup = (n: number) => `\\set k random(1, ${n})
SELECT client_id AS cl, plan_id AS pl, branch_id AS br, n FROM bench_targets_create WHERE k = :k \\gset
`;

// the plan's terms snapshotted on the credit, as createCredit does
const TERMS = [
  'installments_count',
  'days_until_first_payment',
  'cut_type',
  'payment_day',
  'interest_rate',
  'daily_punitory_rate',
  'grace_days',
  'punitory_mode',
  'max_punitory_days',
  'punitory_cap_pct',
  'write_off_days',
  'amortization',
  'vat_rate',
  'business_day_rule',
];

const TRANSACTION = (timezone: string) => {
  const today = todaySql(timezone);
  return `BEGIN;
select set_config('app.actor', 'bench', true);
SELECT pg_advisory_xact_lock_shared(${HOLIDAY_LOCK}, hashtext(:bid::text));
SELECT date FROM holidays WHERE business_id = :bid;
SELECT * FROM clients WHERE business_id = :bid AND id = :cl;
SELECT * FROM credit_configs WHERE business_id = :bid AND id = :pl FOR SHARE;
SELECT * FROM branches WHERE business_id = :bid AND id = :br FOR SHARE;
WITH s AS (
  INSERT INTO business_sequences AS b (business_id, last_credit_seq) VALUES (:bid, 1)
  ON CONFLICT (business_id) DO UPDATE SET last_credit_seq = b.last_credit_seq + 1
  RETURNING last_credit_seq)
INSERT INTO credits (business_id, sequential_id, client_id, credit_config_id, amount, total, created_by, branch_id, start_date, ${TERMS.join(', ')})
SELECT :bid, s.last_credit_seq, :cl, p.id, 1000, 1200, 'bench', :br, ${today}, ${TERMS.map((t) => `p.${t}`).join(', ')}
  FROM s, credit_configs p WHERE p.business_id = :bid AND p.id = :pl
RETURNING id AS new_id \\gset
WITH i AS (
  INSERT INTO installments (business_id, credit_id, number, amount, due_date, principal, interest, vat, tolerance_days)
  SELECT :bid, :new_id, g, 200, ${today} + 30 * g, 160, 40, 0, 0 FROM generate_series(1, :n) g ORDER BY g
  RETURNING *),
l AS (
  INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, effective_date, branch_id, created_by)
  SELECT i.business_id, i.credit_id, i.id, 'installment', 'schedule', i.amount, ${today}, :br, 'bench' FROM i ORDER BY i.number
  RETURNING *)
SELECT i.*, l.id AS l_id, l.created_at AS l_created_at FROM i JOIN l ON l.installment_id = i.id ORDER BY i.number;
END;`;
};

async function check({ c, book, since }: BenchContext): Promise<Record<string, number>> {
  const r = await c.query<Record<string, string>>(
    `WITH k AS (SELECT * FROM credits WHERE business_id = $1 AND created_at >= $2),
          s AS (SELECT count(*) AS n, max(sequential_id) - min(sequential_id) + 1 AS span,
                       count(DISTINCT sequential_id) AS distinct_numbers FROM k)
     SELECT s.n AS credits_created,
            s.n - s.distinct_numbers AS bad_repeated_numbers,
            coalesce(s.span, 0) - s.n AS bad_number_gaps,
            (SELECT count(*) FROM k WHERE NOT EXISTS (SELECT 1 FROM installments i WHERE i.business_id = $1 AND i.credit_id = k.id)) AS bad_without_schedule,
            (SELECT count(*) FROM installments i JOIN k ON i.business_id = $1 AND i.credit_id = k.id
              WHERE NOT EXISTS (SELECT 1 FROM ledger l WHERE l.business_id = $1 AND l.installment_id = i.id AND l.type = 'installment')) AS bad_without_entry,
            (SELECT count(*) FROM k) - (SELECT count(*) FROM audit_log WHERE business_id = $1 AND table_name = 'credits'
              AND action = 'INSERT' AND changed_at >= $2) AS bad_unaudited_credits
       FROM s`,
    [book.business_id, since],
  );
  return Object.fromEntries(Object.entries(r.rows[0]!).map(([k, v]) => [k, Number(v ?? 0)]));
}

await runBench<Target>({
  name: 'create',
  work: 'POST /api/clients/:id/credits',
  key: 'full',
  targets: `SELECT row_number() OVER ()::int AS k, c.id AS client_id, p.id AS plan_id, b.id AS branch_id, p.installments_count AS n
              FROM (SELECT id, row_number() OVER () AS r FROM (SELECT id FROM clients WHERE business_id = $1 ORDER BY random() LIMIT $2) x) c
              JOIN LATERAL (SELECT id, installments_count FROM credit_configs WHERE business_id = $1 AND is_active
                             ORDER BY id OFFSET (c.r % (SELECT count(*) FROM credit_configs WHERE business_id = $1 AND is_active)) LIMIT 1) p ON true
              JOIN LATERAL (SELECT id FROM branches WHERE business_id = $1 AND deleted_at IS NULL
                             ORDER BY id OFFSET (c.r % (SELECT count(*) FROM branches WHERE business_id = $1 AND deleted_at IS NULL)) LIMIT 1) b ON true`,
  request: (t) => ({
    method: 'POST',
    path: `/api/clients/${t.client_id}/credits`,
    body: JSON.stringify({ credit_config_id: t.plan_id, amount: 1000, branch_id: t.branch_id }),
  }),
  ceilings: (book, targets) => [
    {
      label: 'the credit creation transaction',
      scripts: [{ name: 'create', text: [lookup(targets.length), TRANSACTION(book.timezone)].join('\n') }],
    },
  ],
  check,
});
