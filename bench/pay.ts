// Payments: POST /api/credits/:id/payments of small amounts (1.00 to 5.00) on random active credits
// of the bench book, through the real server with the full key, against the database's ceiling
// for the payment's transaction (lock, reads, then one write: payments row, watermark, payment slice, status, event; the key
// is checked in memory), prepared, on the same credits.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- pay [--duration 15] [--connections 16] [--json]
//
// Then pgbench's built-in TPC-B (scale 10, in a scratch database <book>_tpcb made and dropped by
// the run), at the same connections and duration: the ratio to it is the yardstick for a
// write on this machine.
//
// Needs the bench book (npm run bench -- book) in that database. It writes to the book: the app's
// payments (and the punitory a first payment of the day posts), and the ceiling's 0.01 payment
// slices, all audited. Checked after the app and again after the ceiling, over every installment
// of the credits paid: no installment is over-allocated (payments ≤ amount + posted punitory,
// principal ≤ amount, punitory paid ≤ posted), every ledger row written since the start has its
// audit row, every payment written has its payments row, and (after the app) one payment per 2xx
// answer (give or take the requests in flight when the load stops). It also counts the correction
// entries written (earlier payments allocated again by the replay, punitory posted again).
import { runBench, type BenchContext } from './lib/harness.ts';
import { PAYMENT_TRANSACTION } from './lib/statements.ts';

interface Target extends Record<string, unknown> {
  k: number;
  credit_id: string;
  installment_id: string;
  branch_id: string;
}

const lookup = (n: number) => `\\set k random(1, ${n})
SELECT credit_id AS cid, installment_id AS iid, branch_id AS br FROM bench_targets_pay WHERE k = :k \\gset
`;

let phase: 'app' | 'ceilings' = 'app';

async function check({ c, book, since, okAnswers, connections }: BenchContext): Promise<Record<string, number>> {
  const over = await c.query<Record<string, string>>(
    `WITH per AS (
       SELECT l.installment_id,
              coalesce(sum(l.amount) FILTER (WHERE l.type = 'payment'), 0) AS paid,
              coalesce(sum(l.amount - l.punitory_part) FILTER (WHERE l.type = 'payment'), 0) AS principal,
              coalesce(sum(l.punitory_part) FILTER (WHERE l.type = 'payment'), 0) AS punitory_paid,
              coalesce(sum(l.amount) FILTER (WHERE l.type = 'punitory'), 0) AS punitory
         FROM ledger l
        WHERE l.business_id = $1 AND l.credit_id IN (SELECT credit_id FROM bench_targets_pay)
        GROUP BY l.installment_id)
     SELECT count(*) AS installments_checked,
            count(*) FILTER (WHERE p.paid > i.amount + p.punitory) AS bad_over_allocated,
            count(*) FILTER (WHERE p.principal > i.amount) AS bad_over_principal,
            count(*) FILTER (WHERE p.punitory_paid > p.punitory) AS bad_over_punitory
       FROM per p JOIN installments i ON i.business_id = $1 AND i.id = p.installment_id`,
    [book.business_id],
  );
  const rows = await c.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM ledger WHERE business_id = $1 AND created_at >= $2) AS ledger_rows,
            (SELECT count(*) FROM audit_log WHERE business_id = $1 AND table_name = 'ledger' AND action = 'INSERT' AND changed_at >= $2) AS audited,
            (SELECT count(DISTINCT payment_id) FROM ledger WHERE business_id = $1 AND created_at >= $2 AND origin = 'payment') AS payments,
            (SELECT count(*) FROM payments p WHERE business_id = $1 AND created_at >= $2
                AND EXISTS (SELECT 1 FROM ledger l WHERE l.business_id = $1 AND l.payment_id = p.id AND l.origin = 'payment')) AS payment_rows,
            (SELECT count(*) FROM ledger WHERE business_id = $1 AND created_at >= $2 AND origin = 'correction') AS corrections`,
    [book.business_id, since],
  );
  const n = (v: string | undefined) => Number(v ?? 0);
  const r = rows.rows[0]!;
  const out: Record<string, number> = {
    ...Object.fromEntries(Object.entries(over.rows[0]!).map(([k, v]) => [k, n(v)])),
  };
  out.payments = n(r.payments);
  // every payment's slices name a payments row of their own (the payments table, migration 008)
  out.bad_payments_without_row = n(r.payments) - n(r.payment_rows);
  // entries correcting earlier payments or punitory (a replay that allocated history again)
  out.correction_entries = n(r.corrections);
  out.ledger_rows = n(r.ledger_rows);
  out.bad_unaudited_ledger_rows = n(r.ledger_rows) - n(r.audited);
  if (phase === 'app') {
    // autocannon stops counting with requests still in flight (at most one a connection at the end
    // of the warm-up and of the run), which the server completes: that many payments may have no answer counted
    const extra = n(r.payments) - okAnswers;
    out.payments_without_counted_answer = extra;
    out.bad_payments_unexplained = extra < 0 || extra > 2 * connections ? extra : 0;
  }
  phase = 'ceilings';
  return out;
}

await runBench<Target>({
  name: 'pay',
  work: 'POST /api/credits/:id/payments',
  key: 'full',
  // active credits whose last unpaid installment still owes at least 10 of its amount: the ceiling's
  // 0.01 slices go there, where the app's small payments (oldest installment first) do not reach.
  // Never a credit an earlier run paid: the app allocates every payment again in date order, and
  // would correct the ceiling's slices (not where the allocation puts them) at its next payment
  targets: `SELECT row_number() OVER ()::int AS k, x.* FROM (
              SELECT c.id AS credit_id, u.installment_id, c.branch_id
                FROM (SELECT id, branch_id FROM credits k WHERE business_id = $1 AND status = 'active' AND branch_id IS NOT NULL
                         AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.business_id = $1 AND p.credit_id = k.id
                                            AND p.created_at > (SELECT (value->>'built_at')::timestamptz FROM bench_meta WHERE key = 'book'))
                       ORDER BY random() LIMIT $2::int * 2) c
                CROSS JOIN LATERAL (
                  SELECT i.id AS installment_id,
                         i.amount - coalesce((SELECT sum(l.amount - l.punitory_part) FROM ledger l
                                               WHERE l.business_id = $1 AND l.installment_id = i.id AND l.type = 'payment'), 0) AS remaining
                    FROM installments i WHERE i.business_id = $1 AND i.credit_id = c.id AND i.status <> 'paid'
                   ORDER BY i.number DESC LIMIT 1) u
               WHERE u.remaining >= 10
               LIMIT $2::int) x`,
  request: (t) => ({
    method: 'POST',
    path: `/api/credits/${t.credit_id}/payments`,
    body: JSON.stringify({ amount: (100 + Math.floor(Math.random() * 401)) / 100 }),
  }),
  ceilings: (book, targets) => [
    {
      label: 'the payment transaction',
      scripts: [{ name: 'payment', text: [lookup(targets.length), PAYMENT_TRANSACTION(book.timezone)].join('\n') }],
    },
  ],
  check,
  tpcb: true,
});
