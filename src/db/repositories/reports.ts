// Reports: the portfolio summary as one SQL statement (aggregates stay in the database, money in
// numeric), and the export datasets read through a server-side cursor. See docs/reports.md for
// what every figure means "as of" a date.
import { setImmediate } from 'node:timers/promises';
import { CompiledQuery, sql, type Compilable, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { DB } from '../schema.ts';
import type { Database, Executor } from '../connection.ts';
import { compareDates, todayIn } from '../../domain/index.ts';

export interface SummaryQuery {
  businessId: string;
  asOf: string;
  branchId: string | null;
  timezone: string;
  /** the business's today as the caller knows it (its clock); default: the system clock's */
  today?: string;
}

/** Money arrives as numeric text ("1234.50"), ratios as numeric text rounded to 4 places. */
export interface SummaryRow {
  clients: number;
  active: number;
  refinanced: number;
  closed: number;
  written_off: number;
  inactive: number;
  disbursed: string;
  disbursed_refinanced: string;
  outstanding: string;
  written_off_outstanding: string;
  overdue: string;
  par1: string;
  par30: string;
  par60: string;
  par90: string;
  par1_ratio: string;
  par30_ratio: string;
  par60_ratio: string;
  par90_ratio: string;
  collected_day: string;
  collected_month: string;
  situations: { s: number; clients: number; outstanding: string }[];
  branches: {
    branch_id: string | null;
    name: string | null;
    outstanding: string;
    overdue: string;
    par30: string;
    par30_ratio: string;
  }[];
}

/**
 * Every figure of the summary in one statement (one snapshot). The CTEs:
 * cr   credits that exist as of D (start_date <= D) with their status as of D,
 * lb   each installment's balance from the ledger entries effective on or before D,
 * inst the installments of the credits still owing (active or written off) with that balance and
 *      the punitory accrued since the last posting as of D (punitory_cumulative, migration 004),
 * cb   every credit of cr: outstanding, overdue amount, days late of its oldest overdue installment,
 * g    per branch and status (the counts, disbursed, totals, PAR and branches are summed from it),
 * cl   per client (the debtor situations), then the collections and the clients' count.
 *
 * As of the business's today (nothing is dated after it) the balances are the ones kept as the
 * ledger is written (migration 052): a credit with no open installment due by today owes its kept
 * outstanding, nothing of it overdue; only the others have their installments worked out (in cb,
 * unless their figures of D are kept: migration 062), from their kept rows alone (migration 058
 * keeps there what the punitory and the charge read).
 * A past D sums the ledger (lb). Both give the same figures to the cent
 * (test/http/routes/reports/summary-kept.test.ts).
 */
export async function summaryFigures(
  db: Executor,
  q: SummaryQuery,
  /**
   * store the per-credit figures worked out (migration 062): only on the primary, never on a
   * replica; in its own READ COMMITTED transaction (db not a transaction) or the caller's, which
   * must be READ COMMITTED too (the rows are locked SKIP LOCKED and checked against their ver)
   */
  opts: { store?: boolean } = {},
): Promise<SummaryRow> {
  const today = q.today ?? todayIn(q.timezone);
  return compareDates(q.asOf, today) >= 0
    ? summaryIn(db, q, 'kept', opts.store ?? false)
    : summaryIn(db, q, 'ledger', false);
}

// The advisory lock class of a business's figures refresh (the second key is the business's hash).
export const SUMMARY_FIGURES_LOCK = 727_462;

/**
 * The daily refresh of a business's kept per-credit figures (src/jobs/summaryFigures.ts): the
 * summary as of its today, run to store what it works out, so that the first read of the day
 * finds them. One process at a time per business (a try lock: another process already at it
 * means there is nothing to do here); false when it was.
 */
export async function refreshSummaryFigures(
  db: Kysely<DB>,
  q: { businessId: string; timezone: string; today: string },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const { got } = (
      await sql<{
        got: boolean;
      }>`SELECT pg_try_advisory_xact_lock(${SUMMARY_FIGURES_LOCK}, hashtext(${q.businessId})) AS got`.execute(trx)
    ).rows[0]!;
    if (!got) return false;
    await summaryIn(trx, { ...q, asOf: q.today, branchId: null }, 'kept', true);
    return true;
  });
}

/** The summary summed from the ledger whatever the date (how a past date is read). */
export function summaryFromLedger(db: Executor, q: SummaryQuery): Promise<SummaryRow> {
  return summaryIn(db, q, 'ledger', false);
}

async function summaryIn(db: Executor, q: SummaryQuery, from: 'kept' | 'ledger', store: boolean): Promise<SummaryRow> {
  // without JIT: the statement's cost estimate is large enough on a big book for PostgreSQL to
  // compile it first, which took 2.5 of its 4.2 s on 30,000 credits (SET LOCAL: per transaction,
  // so a transaction-mode pooler is fine). work_mem: the default 4 MB made the credits and the
  // per-credit aggregates spill to temporary files (a quarter of the statement's CPU on 30,000
  // credits); 64 MB holds a 300,000-credit book's (docs/benchmarks.md)
  // (set_config(…, true) is SET LOCAL: both in one round trip)
  const settings = (trx: Executor) =>
    sql`SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true)`.execute(trx);
  if (db.isTransaction) {
    await settings(db);
    return summaryStatement(db, q, from, store);
  }
  return db.transaction().execute(async (trx) => {
    await settings(trx);
    return summaryStatement(trx, q, from, store);
  });
}

async function summaryStatement(
  db: Executor,
  q: SummaryQuery,
  from: 'kept' | 'ledger',
  store: boolean,
): Promise<SummaryRow> {
  // the parameters are written where they are used (not in a CTE): the planner sees them and
  // picks hash joins for a whole book instead of index loops sized for a handful of rows
  const bid = sql`${q.businessId}::uuid`;
  const d = sql`${q.asOf}::date`;
  const branch = sql`${q.branchId}::uuid`;
  const tz = sql`${q.timezone}::text`;
  // an installment's balance as of D: its entries' sum, plus what moves with the calendar. i: the
  // installment's due date, amount and tolerance; lb: its sums (bal, punitory_posted,
  // charges_posted, principal_paid); its payment entries (paid: their dates, what each paid of the
  // amount and of the punitory with its VAT, in date order, and what was paid before a day)
  const balOf = (
    i: { due: RawBuilder<unknown>; amount: RawBuilder<unknown>; tolerance: RawBuilder<unknown> },
    lb: string,
    balance: string,
    paid: {
      punitory: RawBuilder<unknown>;
      paidBefore: (day: RawBuilder<unknown>) => RawBuilder<unknown>;
    },
  ) => {
    const k = (c: string) => sql.ref(`${lb}.${c}`);
    return sql`coalesce(${k(balance)}, 0) + CASE
      -- overdue, its amount not all paid: add the punitory accrued since the last posting, what
      -- posting every day would have posted by D (cumulative as of D − posted); only for these
      WHEN ${i.due} < ${d} AND ${k('principal_paid')} < ${i.amount} AND cr.daily_punitory_rate > 0 THEN
        ${paid.punitory} - ${k('punitory_posted')}
      ELSE 0 END + CASE
      -- its charge day has come: the collection charge the rule gives (src/domain/fees.ts
      -- collectionChargeOwed) less what is posted, as a read adds it before the next posting
      WHEN ${i.due} + cr.charge_after_days <= ${d} THEN CASE
          WHEN (cr.stop_date IS NULL OR ${i.due} + cr.charge_after_days <= cr.stop_date) AND cr.charge_total > 0
            AND ${paid.paidBefore(sql`${i.due} + cr.charge_after_days`)} < ${i.amount}
          THEN cr.charge_total ELSE 0 END - coalesce(${k('charges_posted')}, 0)
      ELSE 0 END`;
  };
  const punitoryOf = (
    i: { due: RawBuilder<unknown>; amount: RawBuilder<unknown>; tolerance: RawBuilder<unknown> },
    paidOn: RawBuilder<unknown>,
    principal: RawBuilder<unknown>,
    punitoryNet: RawBuilder<unknown>,
  ) =>
    sql`punitory_with_vat(punitory_cumulative(${i.amount}, ${i.due}, ${d}, cr.stop_date,
                 cr.daily_punitory_rate, cr.punitory_mode, greatest(cr.grace_days, ${i.tolerance}), cr.max_punitory_days,
                 cr.punitory_cap_pct, ${paidOn}, ${principal}, ${punitoryNet}), cr.vat_rate)`;
  // from the installments and the ledger: the subqueries only run for the installments that need
  // them, and read their payments by the ledger_installment_payments index (migration 057)
  const ledgerInst = { due: sql`i.due_date`, amount: sql`i.amount`, tolerance: sql`i.tolerance_days` };
  const bal = balOf(ledgerInst, 'lb', 'bal', {
    punitory: sql`(
        SELECT ${punitoryOf(
          ledgerInst,
          sql`array_agg(p.effective_date ORDER BY p.effective_date, p.created_at)`,
          sql`array_agg(p.amount - p.punitory_part - p.charge_part ORDER BY p.effective_date, p.created_at)`,
          // the punitory paid before its VAT (compound grows on that: lending/engine/state.ts netPunitoryPaid)
          sql`array_agg(p.punitory_part / (1 + cr.vat_rate) ORDER BY p.effective_date, p.created_at)`,
        )}
          FROM ledger p
         WHERE p.business_id = ${bid} AND p.installment_id = i.id AND p.type = 'payment' AND p.effective_date <= ${d})`,
    paidBefore: (day) => sql`(SELECT coalesce(sum(p.amount - p.punitory_part - p.charge_part), 0) FROM ledger p
                  WHERE p.business_id = ${bid} AND p.installment_id = i.id AND p.type = 'payment'
                    AND p.effective_date < ${day})`,
  });
  // from the kept row alone (migration 058): the same figures from the same payments, kept in it
  const keptInst = { due: sql`b.due_date`, amount: sql`b.amount`, tolerance: sql`b.tolerance_days` };
  const keptBal = balOf(keptInst, 'b', 'balance', {
    punitory: punitoryOf(
      keptInst,
      sql`b.paid_on`,
      sql`b.paid_principal`,
      // the punitory paid before its VAT, as above (most overdue installments have no payment:
      // their empty arrays are passed as they are, with no subquery)
      sql`CASE WHEN cardinality(b.paid_punitory) = 0 THEN b.paid_punitory ELSE (
        SELECT array_agg(u.q / (1 + cr.vat_rate) ORDER BY u.o) FROM unnest(b.paid_punitory) WITH ORDINALITY u(q, o)) END`,
    ),
    paidBefore: (day) =>
      sql`CASE WHEN cardinality(b.paid_on) = 0 THEN 0 ELSE (
        SELECT coalesce(sum(u.p), 0) FROM unnest(b.paid_on, b.paid_principal) u(d, p) WHERE u.d < ${day}) END`,
  });
  const overdueOf = sql`
    coalesce(sum(inst.bal) FILTER (WHERE inst.due_date < ${d} AND inst.bal > 0), 0) AS overdue,
    coalesce(${d} - min(inst.due_date) FILTER (WHERE inst.due_date < ${d} AND inst.bal > 0), 0) AS days_late`;
  const perCredit = sql`coalesce(sum(inst.bal), 0) AS outstanding, ${overdueOf}`;
  // the collection charge (docs/domain.md "Fees and charges"; migration 055): its total with VAT,
  // or after_days; looked up only for a credit whose fees have one (most have none: no call a row)
  const chargeOf = (field: 'total' | 'after_days') =>
    sql`CASE WHEN c.fees @> '[{"type": "collection"}]'::jsonb
      THEN (SELECT x.${sql.ref(field)} FROM collection_charge(c.fees, c.vat_rate) x) END`;
  // what the punitory and the charge of a credit's installments read of it (c: the credit)
  const ruleColumns = sql`
    c.amount, c.daily_punitory_rate, c.punitory_mode, c.grace_days, c.max_punitory_days, c.punitory_cap_pct, c.vat_rate,
    (c.written_off_at AT TIME ZONE ${tz})::date AS stop_date,
    ${chargeOf('total')} AS charge_total, ${chargeOf('after_days')} AS charge_after_days`;
  const balances =
    from === 'ledger'
      ? sql`
lb AS (
  SELECT l.installment_id, sum(CASE WHEN l.type = 'payment' THEN -l.amount ELSE l.amount END) AS bal,
    coalesce(sum(l.amount) FILTER (WHERE l.type = 'punitory'), 0) AS punitory_posted,
    coalesce(sum(l.amount) FILTER (WHERE l.type = 'charge'), 0) AS charges_posted,
    coalesce(sum(l.amount - l.punitory_part - l.charge_part) FILTER (WHERE l.type = 'payment'), 0) AS principal_paid
  FROM ledger l
  WHERE l.business_id = ${bid} AND l.effective_date <= ${d}
  GROUP BY l.installment_id
),
inst AS (
  SELECT i.credit_id, i.due_date, ${bal} AS bal
  FROM cr
  JOIN installments i ON i.business_id = ${bid} AND i.credit_id = cr.id
  LEFT JOIN lb ON lb.installment_id = i.id
  WHERE cr.st IN ('active', 'written_off')
),
-- every credit of cr, with what it owes (0 but for active and written-off credits)
cb AS (
  SELECT cr.id, cr.client_id, cr.branch_id, cr.st, cr.disbursed, cr.refinanced_from_id, ${perCredit}
  FROM cr
  LEFT JOIN inst ON inst.credit_id = cr.id
  GROUP BY cr.id, cr.client_id, cr.branch_id, cr.st, cr.disbursed, cr.refinanced_from_id
),`
      : sql`
-- every credit as of D with what it owes (0 but for active and written-off credits), in one pass
-- over the credits and their kept rows (migrations 052, 062): the kept outstanding, plus for an
-- open credit what the calendar adds, kept for D or worked out now (w)
cb AS (
  SELECT o.id, o.client_id, o.branch_id, o.st, o.disbursed, o.refinanced_from_id, o.ver, o.w IS NOT NULL AS worked,
    CASE WHEN o.st NOT IN ('active', 'written_off') THEN 0
         ELSE o.outstanding + CASE WHEN NOT o.open THEN 0 WHEN o.kept THEN o.fig_added ELSE coalesce(o.w[1], 0) END
    END AS outstanding,
    CASE WHEN o.st NOT IN ('active', 'written_off') OR NOT o.open THEN 0
         WHEN o.kept THEN o.fig_overdue ELSE coalesce(o.w[2], 0) END AS overdue,
    CASE WHEN o.st NOT IN ('active', 'written_off') OR NOT o.open THEN 0
         WHEN o.kept THEN o.fig_days_late ELSE coalesce(o.w[3], 0)::int END AS days_late,
    o.w
  FROM (
    SELECT cr.*,
      -- worked out only for an open credit whose figures of D are not kept: its installments due
      -- from lo to hi (a range of installment_balances_credit_due, migration 058; the kept rows
      -- hold all it reads), and the terms of the credit they read; {added, overdue, days late}
      CASE WHEN cr.st IN ('active', 'written_off') AND cr.open AND NOT cr.kept THEN (
        SELECT ARRAY[coalesce(sum(inst.bal - inst.kept), 0),
          coalesce(sum(inst.bal) FILTER (WHERE inst.due_date < ${d} AND inst.bal > 0), 0),
          coalesce(${d} - min(inst.due_date) FILTER (WHERE inst.due_date < ${d} AND inst.bal > 0), 0)]
        FROM (
          SELECT b.due_date, b.balance AS kept, ${keptBal} AS bal
          FROM (SELECT cr.id, cr.lo, cr.hi, ${ruleColumns}
                  FROM credits c WHERE c.business_id = ${bid} AND c.id = cr.id) cr
          JOIN installment_balances b ON b.business_id = ${bid} AND b.credit_id = cr.id
           AND b.due_date >= cr.lo AND b.due_date < cr.hi
          -- bal is read three times above: computed once (not flattened into them)
          OFFSET 0) inst)
      END AS w
    FROM cr
    -- w is read three times above: computed once
    OFFSET 0) o
),${
          store
            ? sql`
-- the figures worked out now, stored for the next read of D: only where the credit's row is still
-- the one read (its ver unchanged; a write committed since bumped it) and not held by a writer
-- (SKIP LOCKED: a read never waits for a payment, nor holds one up beyond its own statement)
stored AS (
  UPDATE credit_balances k
     SET fig_on = ${d}, fig_ver = s.ver, fig_added = s.added, fig_overdue = s.overdue, fig_days_late = s.days_late
    FROM (SELECT x.credit_id, cb.ver, coalesce(cb.w[1], 0) AS added, cb.overdue, cb.days_late
            FROM cb
            JOIN credit_balances x ON x.business_id = ${bid} AND x.credit_id = cb.id AND x.ver = cb.ver
           WHERE cb.worked
             FOR UPDATE OF x SKIP LOCKED) s
   WHERE k.business_id = ${bid} AND k.credit_id = s.credit_id
),`
            : sql``
        }`;
  // as of today, each credit's kept row is read with it (migrations 052, 062): the kept
  // outstanding; open: an installment due by D may be overdue or owe what is not posted yet (no
  // kept row: worked out as well). [lo, hi): the due dates of its installments to work out: from
  // its oldest open installment (before it, each is settled: its kept balance is what it owes and
  // it is not overdue) to D (one due on D or later is not overdue, owes no punitory and its charge
  // day, at least a day after it, has not come: its kept balance is what it owes); all of them when
  // the credit has no kept row or a charge day that does not follow the due date. kept: an open
  // credit whose figures of D were stored since its last change (migration 062)
  const keptColumns =
    from === 'kept'
      ? sql`,
    coalesce(k.outstanding, 0) AS outstanding,
    coalesce(k.credit_id IS NULL OR k.open_from <= ${d} OR ${chargeOf('after_days')} < 1, false) AS open,
    coalesce(k.fig_on = ${d} AND k.fig_ver = k.ver, false) AS kept, k.ver,
    k.fig_added, k.fig_overdue, k.fig_days_late,
    CASE WHEN k.credit_id IS NULL OR ${chargeOf('after_days')} < 1 THEN '-infinity'::date ELSE k.open_from END AS lo,
    CASE WHEN ${chargeOf('after_days')} < 1 THEN 'infinity'::date ELSE ${d} END AS hi`
      : sql``;
  const keptJoin =
    from === 'kept' ? sql`LEFT JOIN credit_balances k ON k.business_id = c.business_id AND k.credit_id = c.id` : sql``;
  const r = await sql<SummaryRow>`
WITH cr AS (
  SELECT c.id, c.client_id, c.branch_id, c.disbursed, c.refinanced_from_id,${from === 'ledger' ? sql`${ruleColumns},` : sql``}
    CASE
      -- a cancelled credit is void from its start: never part of any figure but the count
      WHEN c.status = 'inactive' THEN 'inactive'
      WHEN c.status = 'written_off' AND (c.written_off_at AT TIME ZONE ${tz})::date > ${d} THEN 'active'
      -- closed / refinanced from the effective date of the payment (or the waiver) that settled it;
      -- nothing is dated after the business's today, so only a past D looks it up (one index
      -- search per closed credit: seconds on a large book)
      WHEN c.status IN ('closed', 'refinanced') AND ${d} < (SELECT (now() AT TIME ZONE ${tz})::date) AND coalesce(
        (SELECT max(l.effective_date) FROM ledger l
          WHERE l.business_id = c.business_id AND l.credit_id = c.id AND l.type IN ('payment', 'waiver')), c.start_date) > ${d} THEN 'active'
      ELSE c.status
    END AS st${keptColumns}
  FROM credits c
  ${keptJoin}
  WHERE c.business_id = ${bid} AND c.start_date <= ${d} AND (${branch} IS NULL OR c.branch_id = ${branch})
),
${balances}
-- one pass over the credits for every figure but the clients': per branch and status (a few dozen
-- rows), from which the totals, the counts and the branches are summed
g AS (
  SELECT cb.branch_id, cb.st, count(*) AS n,
    coalesce(sum(cb.disbursed) FILTER (WHERE cb.refinanced_from_id IS NULL), 0) AS disbursed,
    coalesce(sum(cb.disbursed) FILTER (WHERE cb.refinanced_from_id IS NOT NULL), 0) AS disbursed_refinanced,
    sum(cb.outstanding) AS outstanding,
    sum(cb.overdue) AS overdue,
    coalesce(sum(cb.outstanding) FILTER (WHERE cb.days_late >= 1), 0) AS par1,
    coalesce(sum(cb.outstanding) FILTER (WHERE cb.days_late >= 30), 0) AS par30,
    coalesce(sum(cb.outstanding) FILTER (WHERE cb.days_late >= 60), 0) AS par60,
    coalesce(sum(cb.outstanding) FILTER (WHERE cb.days_late >= 90), 0) AS par90
  FROM cb
  GROUP BY cb.branch_id, cb.st
),
tot AS (
  SELECT coalesce(sum(outstanding), 0) AS outstanding,
    coalesce(sum(overdue), 0) AS overdue,
    coalesce(sum(par1), 0) AS par1,
    coalesce(sum(par30), 0) AS par30,
    coalesce(sum(par60), 0) AS par60,
    coalesce(sum(par90), 0) AS par90
  FROM g WHERE st = 'active'
),
wo AS (SELECT coalesce(sum(outstanding), 0) AS outstanding FROM g WHERE st = 'written_off'),
cnt AS (
  SELECT coalesce(sum(n) FILTER (WHERE st = 'active'), 0)::bigint AS active,
    coalesce(sum(n) FILTER (WHERE st = 'refinanced'), 0)::bigint AS refinanced,
    coalesce(sum(n) FILTER (WHERE st = 'closed'), 0)::bigint AS closed,
    coalesce(sum(n) FILTER (WHERE st = 'written_off'), 0)::bigint AS written_off,
    coalesce(sum(n) FILTER (WHERE st = 'inactive'), 0)::bigint AS inactive,
    coalesce(sum(disbursed) FILTER (WHERE st <> 'inactive'), 0) AS disbursed,
    coalesce(sum(disbursed_refinanced) FILTER (WHERE st <> 'inactive'), 0) AS disbursed_refinanced
  FROM g
),
cl AS (
  SELECT client_id, sum(outstanding) AS outstanding, max(days_late) AS worst
  FROM cb WHERE st = 'active' GROUP BY client_id HAVING sum(outstanding) > 0
),
sit AS (
  SELECT CASE WHEN worst <= 31 THEN 1 WHEN worst <= 90 THEN 2 WHEN worst <= 180 THEN 3 WHEN worst <= 365 THEN 4 ELSE 5 END AS s,
    count(*) AS clients, sum(outstanding) AS outstanding
  FROM cl GROUP BY 1
),
br AS (
  SELECT b.id AS branch_id, b.name,
    coalesce(a.outstanding, 0) AS outstanding,
    coalesce(a.overdue, 0) AS overdue,
    coalesce(a.par30, 0) AS par30
  FROM branches b
  LEFT JOIN g a ON a.branch_id = b.id AND a.st = 'active'
  WHERE b.business_id = ${bid} AND (${branch} IS NULL OR b.id = ${branch})
    -- a deleted branch shows while it still has a book, or when asked for by id
    AND (b.deleted_at IS NULL OR ${branch} IS NOT NULL OR coalesce(a.outstanding, 0) <> 0)
  UNION ALL
  -- credits with no branch, so that the branches add up to the totals
  SELECT NULL, NULL, a.outstanding, a.overdue, a.par30
  FROM g a WHERE a.branch_id IS NULL AND a.st = 'active'
),
col AS (
  SELECT coalesce(sum(l.amount) FILTER (WHERE l.effective_date = ${d}), 0) AS day,
    coalesce(sum(l.amount), 0) AS month
  FROM ledger l
  WHERE l.business_id = ${bid} AND l.type = 'payment'
    AND l.effective_date BETWEEN make_date(extract(year FROM ${d})::int, extract(month FROM ${d})::int, 1) AND ${d}
    -- the credit's branch only when a branch is asked for (the whole business needs no credit:
    -- every entry has one; joining them all cost a hash of every credit of the book)
    AND (${branch} IS NULL OR coalesce(l.branch_id,
          (SELECT c.branch_id FROM credits c WHERE c.business_id = l.business_id AND c.id = l.credit_id)) = ${branch})
    -- cash only: a refinance settlement moves a balance to the new credit and a rebate forgives
    -- interest; a reversal takes back what its payment brought, on the payment's own date
    AND l.origin IN ('payment', 'reversal', 'correction')
),
-- the clients: for the whole business every client created by D (an index range), plus those
-- created later with a credit that counts (a credit backdated before its client existed); for a
-- branch, the clients of its credits. The second count looks the credits up only for the clients
-- the first leaves out (none, as of today, for the whole business)
ncl AS (
  SELECT (SELECT count(*) FROM clients k
           WHERE ${branch} IS NULL AND k.business_id = ${bid} AND k.created_at < ((${d} + 1)::timestamp AT TIME ZONE ${tz}))
       + (SELECT count(*) FROM clients k
           WHERE k.business_id = ${bid}
             AND NOT (${branch} IS NULL AND k.created_at < ((${d} + 1)::timestamp AT TIME ZONE ${tz}))
             AND k.id IN (SELECT client_id FROM cb WHERE st <> 'inactive')) AS n
)
SELECT (SELECT n FROM ncl) AS clients,
  cnt.active, cnt.refinanced, cnt.closed, cnt.written_off, cnt.inactive, cnt.disbursed, cnt.disbursed_refinanced,
  tot.outstanding, wo.outstanding AS written_off_outstanding, tot.overdue,
  tot.par1, tot.par30, tot.par60, tot.par90,
  CASE WHEN tot.outstanding = 0 THEN 0 ELSE round(tot.par1 / tot.outstanding, 4) END AS par1_ratio,
  CASE WHEN tot.outstanding = 0 THEN 0 ELSE round(tot.par30 / tot.outstanding, 4) END AS par30_ratio,
  CASE WHEN tot.outstanding = 0 THEN 0 ELSE round(tot.par60 / tot.outstanding, 4) END AS par60_ratio,
  CASE WHEN tot.outstanding = 0 THEN 0 ELSE round(tot.par90 / tot.outstanding, 4) END AS par90_ratio,
  col.day AS collected_day, col.month AS collected_month,
  (SELECT json_agg(json_build_object('s', g.s, 'clients', coalesce(sit.clients, 0),
            'outstanding', coalesce(sit.outstanding, 0)::text) ORDER BY g.s)
     FROM generate_series(1, 5) g(s) LEFT JOIN sit ON sit.s = g.s) AS situations,
  (SELECT coalesce(json_agg(json_build_object('branch_id', br.branch_id, 'name', br.name,
            'outstanding', br.outstanding::text, 'overdue', br.overdue::text, 'par30', br.par30::text,
            'par30_ratio', (CASE WHEN br.outstanding = 0 THEN 0 ELSE round(br.par30 / br.outstanding, 4) END)::text)
            ORDER BY br.name NULLS LAST, br.branch_id), '[]'::json)
     FROM br) AS branches
FROM cnt, tot, wo, col`.execute(db);
  return r.rows[0]!;
}

// ---------------------------------------------------------------- exports

export const DATASETS = ['clients', 'credits', 'installments', 'ledger', 'payments', 'logs'] as const;
export type Dataset = (typeof DATASETS)[number];

/** A from/to bound: a calendar date (a whole day in the business's time zone) or an instant. */
export type Bound = { date: string } | { instant: string };

export interface ExportFilter {
  businessId: string;
  timezone: string;
  /** logs: the tables whose entries this reader may not see */
  hiddenTables?: string[];
  from?: Bound;
  to?: Bound;
}

function lowerBound(col: RawBuilder<unknown>, b: Bound, tz: string) {
  return 'date' in b
    ? sql<boolean>`${col} >= (${b.date}::date::timestamp AT TIME ZONE ${tz})`
    : sql<boolean>`${col} >= ${b.instant}::timestamptz`;
}

// a date includes its whole day: up to the next local midnight, exclusive
function upperBound(col: RawBuilder<unknown>, b: Bound, tz: string) {
  return 'date' in b
    ? sql<boolean>`${col} < ((${b.date}::date + 1)::timestamp AT TIME ZONE ${tz})`
    : sql<boolean>`${col} <= ${b.instant}::timestamptz`;
}

function bounds(col: string, f: ExportFilter) {
  const ref = sql.ref(col);
  const out: RawBuilder<boolean>[] = [];
  if (f.from) out.push(lowerBound(ref, f.from, f.timezone));
  if (f.to) out.push(upperBound(ref, f.to, f.timezone));
  return out;
}

// Each dataset's table and the timestamp its from/to filter on; JSON columns are read as text.
const EXPORT_TABLES = {
  clients: { table: 'clients', time: 'created_at', json: [] },
  credits: { table: 'credits', time: 'created_at', json: [] },
  installments: { table: 'installments', time: 'created_at', json: [] },
  ledger: { table: 'ledger', time: 'created_at', json: [] },
  payments: { table: 'payments', time: 'created_at', json: [] },
  logs: { table: 'audit_log', time: 'changed_at', json: ['old_data', 'new_data'] },
} as const satisfies Record<Dataset, { table: keyof DB; time: string; json: readonly string[] }>;

export type ExportRow = Record<string, unknown>;

/**
 * Columns an export reads from another table: an installment's credit status (a cancelled credit's
 * are never late), looked up only for an installment not paid (a paid one is never late either:
 * no lookup for most rows of a book)
 */
const FROM_ELSEWHERE: Partial<Record<Dataset, Record<string, RawBuilder<unknown>>>> = {
  installments: {
    credit_status: sql`CASE WHEN installments.status <> 'paid' THEN (SELECT c.status FROM credits c
      WHERE c.business_id = installments.business_id AND c.id = installments.credit_id) END`,
  },
};

/**
 * A dataset's rows with these columns, oldest first (created_at, or changed_at for logs, then id:
 * the (business_id, created_at, id) indexes). The stored JSON is read as text: no parse and
 * re-serialise per row.
 */
export function exportQuery(
  db: Kysely<DB>,
  dataset: Dataset,
  columns: readonly string[],
  f: ExportFilter,
): Compilable<ExportRow> {
  const { table, time, json } = EXPORT_TABLES[dataset];
  const isJson = (c: string) => (json as readonly string[]).includes(c);
  let q = db
    .selectFrom(table)
    .select(
      columns.map((c) => (FROM_ELSEWHERE[dataset]?.[c] ?? (isJson(c) ? sql`${sql.ref(c)}::text` : sql.ref(c))).as(c)),
    )
    .where('business_id', '=', f.businessId);
  for (const b of bounds(time, f)) q = q.where(b);
  if (dataset === 'logs' && f.hiddenTables?.length)
    q = q.where(sql<boolean>`table_name NOT IN (${sql.join(f.hiddenTables)})`);
  return q.orderBy(time).orderBy('id');
}

/** How many rows a query gives. */
export async function countRows(db: Kysely<DB>, query: Compilable<unknown>): Promise<number> {
  const c = query.compile();
  const r = (
    await db.executeQuery<{ n: number }>(CompiledQuery.raw(`SELECT count(*) AS n FROM (${c.sql}) x`, [...c.parameters]))
  ).rows[0]!;
  return Number(r.n);
}

/**
 * Streams a query's rows in batches from a server-side cursor: a read-only transaction holds
 * `DECLARE … NO SCROLL CURSOR`, and the next `FETCH` runs only when the consumer asks for the
 * next batch, so memory holds one batch whatever the row count. The same on PostgreSQL and
 * PGlite; on PGlite the transaction holds the one connection until the export ends or is
 * abandoned (the generator's return()/throw() closes it).
 */
export async function* cursorBatches<R>(db: Kysely<DB>, query: Compilable<R>, batchSize = 1000): AsyncGenerator<R[]> {
  const compiled = query.compile();
  const trx = await db.startTransaction().setAccessMode('read only').execute();
  let finished = false;
  try {
    await trx.executeQuery(
      CompiledQuery.raw(`DECLARE export_rows NO SCROLL CURSOR FOR ${compiled.sql}`, [...compiled.parameters]),
    );
    const fetch = CompiledQuery.raw(`FETCH ${Math.trunc(batchSize)} FROM export_rows`);
    for (;;) {
      const { rows } = await trx.executeQuery<R>(fetch);
      if (rows.length > 0) yield rows;
      if (rows.length < batchSize) break;
    }
    await trx.commit().execute();
    finished = true;
  } finally {
    if (!finished)
      await trx
        .rollback()
        .execute()
        .catch(() => {});
  }
}

/**
 * A dataset's rows in batches, oldest first. PostgreSQL: from one server-side cursor (one snapshot,
 * its own connection). Embedded: PGlite has one connection, and a cursor's transaction would hold
 * it, and every other request behind it, until the export ends; so each batch is a short query of
 * its own, the next rows after the last one's (time, id) by the (business_id, time, id) index,
 * and other requests run between batches. Those rows stop at the instant the export began: a row
 * written during the export is left out, one changed during it is shown as it is when its batch is read.
 */
export async function* exportBatches(
  db: Database,
  dataset: Dataset,
  columns: readonly string[],
  f: ExportFilter,
  batchSize = 1000,
  /** where the rows are read (a replica's handle, db.reads): db.kysely by default */
  from: Kysely<DB> = db.kysely,
): AsyncGenerator<ExportRow[]> {
  if (db.mode === 'postgres') {
    yield* cursorBatches(from, exportQuery(from, dataset, columns, f), batchSize);
    return;
  }
  const { time } = EXPORT_TABLES[dataset];
  const k = db.kysely;
  const { began } = (await sql<{ began: string }>`SELECT now()::text AS began`.execute(k)).rows[0]!;
  let after: { time: string; id: string } | null = null;
  for (;;) {
    // PGlite runs on this thread and answers at once: without a turn of the event loop between
    // batches, requests that arrived meanwhile would not even be read until the export ended
    await setImmediate();
    let q = (exportQuery(k, dataset, columns, f) as SelectQueryBuilder<DB, never, ExportRow>)
      .select([sql<string>`${sql.ref(time)}::text`.as('__time'), sql<string>`id`.as('__id')])
      .where(sql<boolean>`${sql.ref(time)} <= ${began}::timestamptz`);
    if (after) q = q.where(sql<boolean>`(${sql.ref(time)}, id) > (${after.time}::timestamptz, ${after.id}::uuid)`);
    const rows = (await q.limit(Math.trunc(batchSize)).execute()) as (ExportRow & { __time: string; __id: string })[];
    if (rows.length > 0) {
      const last = rows[rows.length - 1]!;
      after = { time: last.__time, id: last.__id };
      for (const r of rows) {
        delete (r as Partial<typeof r>).__time;
        delete (r as Partial<typeof r>).__id;
      }
      yield rows;
    }
    if (rows.length < batchSize) return;
  }
}

export type CollectionsGroup = 'day' | 'method' | 'channel' | 'branch';

const GROUP_KEY: Record<CollectionsGroup, string> = {
  day: "to_char(paid_on, 'YYYY-MM-DD')",
  method: 'method',
  channel: 'channel',
  branch: 'branch_id::text',
};

/**
 * The business's payments dated from..to (both included) grouped by key: how many and how much,
 * and of those how many were reversed since and for how much. Amounts as numeric text.
 */
export async function collectionRows(
  db: Kysely<DB>,
  q: { businessId: string; from: string; to: string; groupBy: CollectionsGroup },
): Promise<
  { key: string | null; payments: string; amount: string; reversed_payments: string; reversed_amount: string }[]
> {
  const key = sql.raw(GROUP_KEY[q.groupBy]);
  const { rows } = await sql<{
    key: string | null;
    payments: string;
    amount: string;
    reversed_payments: string;
    reversed_amount: string;
  }>`
    SELECT ${key} AS key, count(*)::text AS payments, sum(amount)::text AS amount,
           count(*) FILTER (WHERE reversed_at IS NOT NULL)::text AS reversed_payments,
           coalesce(sum(amount) FILTER (WHERE reversed_at IS NOT NULL), 0)::text AS reversed_amount
      FROM payments
     WHERE business_id = ${q.businessId} AND paid_on BETWEEN ${q.from}::date AND ${q.to}::date
     GROUP BY 1
     ORDER BY 1 NULLS LAST`.execute(db);
  return rows;
}
