// The summary as of today reads the balances kept as the ledger is written (migration 052) and
// works out only the credits with an open installment due by today; a past date sums the ledger.
// On one book with every kind of event, the two give the same figures to the cent, on several
// days after the last event (the kept rows do not move with the calendar, the figures do).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { build, settableClock, type Harness } from '../../../helpers/app.ts';
import { cli, newBranch, newClient, newPlan, ok } from './helpers.ts';
import { summaryFigures, summaryFromLedger } from '../../../../src/db/repositories/reports.ts';
import { refreshDailySummaryFigures } from '../../../../src/services/reports.ts';

const paymentIdOf = (receipt: any): string => receipt.ledgerEntries.at(-1).payment_id;

async function accrue(h: Harness) {
  const r = await cli(h, 'accrue', '--business', h.tenant.businessId);
  assert.equal(r.code, 0, r.err);
}

async function buildBook(h: Harness, clock: ReturnType<typeof settableClock>) {
  // every fee and punitory rule: VAT, insurance, an admin fee, a collection charge with VAT
  const full = await newPlan(h, {
    installments_count: 3,
    interest_rate: 0.3,
    vat_rate: 0.21,
    days_until_first_payment: 30,
    cut_type: 'fixed',
    daily_punitory_rate: 0.01,
    punitory_mode: 'simple_outstanding',
    fees: [
      { type: 'insurance', rate: 0.01, vat: false },
      { type: 'admin', amount: 20, vat: true },
      { type: 'collection', amount: 50, vat: true, after_days: 5 },
    ],
  });
  // compound punitory with grace, a collection charge without VAT
  const compound = await newPlan(h, {
    installments_count: 4,
    interest_rate: 0.2,
    days_until_first_payment: 30,
    cut_type: 'fixed',
    daily_punitory_rate: 0.005,
    punitory_mode: 'compound',
    grace_days: 3,
    fees: [{ type: 'collection', amount: 30, vat: false, after_days: 10 }],
  });
  // punitory on the full amount, capped; no fees
  const capped = await newPlan(h, {
    installments_count: 2,
    interest_rate: 0.1,
    days_until_first_payment: 30,
    cut_type: 'fixed',
    daily_punitory_rate: 0.02,
    punitory_mode: 'full_amount',
    punitory_cap_pct: 0.1,
  });
  const plain = await newPlan(h, { installments_count: 2, days_until_first_payment: 30, cut_type: 'fixed' });
  const norte = await newBranch(h, 'Norte');
  const sur = await newBranch(h, 'Sur');
  const credit = async (p: any, amount: number, branch: any, start = '2025-01-01') => {
    const cl = await newClient(h, 'Kept');
    const body: Record<string, unknown> = { credit_config_id: p.id, amount, start_date: start };
    if (branch) body.branch_id = branch.id;
    return ok(h.post(`/api/clients/${cl.id}/credits`, body));
  };
  const pay = (c: any, amount: number, paid_on?: string, branch?: any) =>
    ok(
      h.post(`/api/credits/${c.credit.id}/payments`, {
        amount,
        ...(paid_on ? { paid_on } : {}),
        ...(branch ? { branch_id: branch.id } : {}),
      }),
    );
  const amountOf = (c: any, n: number): number => c.installments[n].amount;

  const c1 = await credit(full, 1000, norte);
  const c2 = await credit(full, 1000, sur);
  const c3 = await credit(compound, 2000, null);
  const c4 = await credit(full, 1500, norte);
  const c5 = await credit(compound, 1200, sur);
  const c6 = await credit(plain, 800, null);
  const c8 = await credit(full, 1000, null);
  const c9 = await credit(compound, 900, norte);
  const c10 = await credit(full, 600, sur);
  const c11 = await credit(capped, 700, null);

  // installment 1 paid on its due date by some; c2's payment bounces
  clock.set('2025-01-31');
  await pay(c1, amountOf(c1, 0));
  const bounced = await pay(c2, amountOf(c2, 0));
  await pay(c4, amountOf(c4, 0));
  await pay(c11, 100);
  clock.set('2025-02-10');
  await ok(h.post(`/api/credits/${c2.credit.id}/payments/${paymentIdOf(bounced)}/reverse`, { reason: 'bounced' }), 200);
  await pay(c3, 100, undefined, sur);
  await accrue(h);
  // waivers of posted punitory and of a posted charge
  clock.set('2025-02-15');
  await pay(c8, 1);
  await ok(
    h.post(`/api/credits/${c8.credit.id}/waivers`, {
      installment_id: c8.installments[0].id,
      kind: 'punitory',
      amount: 1,
      reason: 'agreed',
    }),
  );
  await ok(
    h.post(`/api/credits/${c8.credit.id}/waivers`, {
      installment_id: c8.installments[0].id,
      kind: 'charge',
      amount: 10,
      reason: 'agreed',
    }),
  );
  clock.set('2025-03-01');
  await accrue(h);
  // a payment dated before installment 1's charge day, recorded after the charge was posted
  clock.set('2025-03-05');
  await pay(c9, amountOf(c9, 0) + 5, '2025-02-01');
  // everything due paid late, its charges with it
  const p10 = await ok(h.get(`/api/credits/${c10.credit.id}/payoff`), 200);
  await pay(c10, p10.breakdown.due + p10.breakdown.punitory + p10.breakdown.charges);
  // early payoff with its rebate; a refinance
  clock.set('2025-03-10');
  const p4 = await ok(h.get(`/api/credits/${c4.credit.id}/payoff`), 200);
  assert.ok(p4.breakdown.rebate > 0, 'fixture: the payoff of c4 has a rebate');
  await pay(c4, p4.amount);
  const r5 = await ok(h.post(`/api/credits/${c5.credit.id}/refinance`, { credit_config_id: plain.id }));
  // a write-off and a recovery; a cancelled credit
  clock.set('2025-03-15');
  await ok(h.post(`/api/credits/${c6.credit.id}/write-off`, { reason: 'lost' }), 200);
  clock.set('2025-03-20');
  await pay(c6, 100);
  const c7 = await credit(plain, 500, norte, '2025-03-20');
  await ok(h.post(`/api/credits/${c7.credit.id}/cancel`), 200);
  // a backdated payment after punitory was posted past its date
  clock.set('2025-03-25');
  await pay(c3, 150, '2025-02-20');
  clock.set('2025-04-01');
  await accrue(h);
  // a holiday on the due date of c9's last installment (not paid): its tolerance moves (kept too)
  const lastDue = c9.installments[c9.installments.length - 1].due_date;
  await ok(h.post('/api/holidays', { date: lastDue, name: 'Kept holiday' }));
  clock.set('2025-04-05');
  await pay(c1, 50);
  await pay(c11, 30);
  return { norte, sur, c1, c2, c3, c4, c6, c7, c8, c9, c10, c11, r5 };
}

/** The business's kept rows, and the same sums worked out from its whole ledger (as migration 052 fills them). */
/** The API's summary (as of the business's today: the kept path) agrees with the ledger statement. */
async function apiAgreesWithLedger(h: Harness, today: string, label: string) {
  const s = await ok(h.get('/api/reports/summary'), 200);
  const ledger = await summaryFromLedger(h.db.kysely, {
    businessId: h.tenant.businessId,
    asOf: today,
    branchId: null,
    timezone: 'UTC',
  });
  assert.equal(s.as_of, today, label);
  assert.equal(s.outstanding, Number(ledger.outstanding), label);
  assert.equal(s.overdue, Number(ledger.overdue), label);
  assert.equal(s.par.par1.amount, Number(ledger.par1), label);
  assert.equal(s.par.par30.amount, Number(ledger.par30), label);
}

async function keptAndRecomputed(h: Harness) {
  const bid = h.tenant.businessId;
  // the payment arrays as text, in date order (entries of one date in any order: sorted by their values)
  const kept = await sql<Record<string, string>>`
    SELECT b.installment_id::text, balance::text, punitory_posted::text, charges_posted::text, principal_paid::text,
           last_paid_on::text, b.due_date::text, b.amount::text, b.tolerance_days::text,
           (SELECT coalesce(string_agg(concat_ws(' ', u.d, u.p, u.q), ',' ORDER BY u.d, u.p, u.q), '')
              FROM unnest(b.paid_on, b.paid_principal, b.paid_punitory) WITH ORDINALITY u(d, p, q, o)) AS paid,
           (SELECT bool_and(u.d >= coalesce(u.prev, u.d)) FROM (SELECT d, lag(d) OVER (ORDER BY o) AS prev
              FROM unnest(b.paid_on) WITH ORDINALITY x(d, o)) u)::text AS in_order
      FROM installment_balances b WHERE b.business_id = ${bid} ORDER BY b.installment_id`.execute(h.db.kysely);
  const fresh = await sql<Record<string, string>>`
    SELECT l.installment_id::text, sum(CASE WHEN type = 'payment' THEN -l.amount ELSE l.amount END)::text AS balance,
           coalesce(sum(l.amount) FILTER (WHERE type = 'punitory'), 0)::text AS punitory_posted,
           coalesce(sum(l.amount) FILTER (WHERE type = 'charge'), 0)::text AS charges_posted,
           coalesce(sum(l.amount - punitory_part - charge_part) FILTER (WHERE type = 'payment'), 0)::text AS principal_paid,
           (max(effective_date) FILTER (WHERE type = 'payment'))::text AS last_paid_on,
           i.due_date::text, i.amount::text, i.tolerance_days::text,
           coalesce(string_agg(concat_ws(' ', l.effective_date, l.amount - punitory_part - charge_part, punitory_part), ','
             ORDER BY l.effective_date, l.amount - punitory_part - charge_part, punitory_part) FILTER (WHERE type = 'payment'), '') AS paid,
           CASE WHEN bool_or(type = 'payment') THEN 'true' END AS in_order
      FROM ledger l JOIN installments i ON i.business_id = l.business_id AND i.id = l.installment_id
     WHERE l.business_id = ${bid} GROUP BY l.installment_id, i.due_date, i.amount, i.tolerance_days
     ORDER BY l.installment_id`.execute(h.db.kysely);
  const credits = await sql<{ kept: string; fresh: string; n: string }>`
    SELECT (SELECT sum(outstanding) FROM credit_balances WHERE business_id = ${bid})::text AS kept,
           (SELECT sum(balance) FROM installment_balances WHERE business_id = ${bid})::text AS fresh,
           (SELECT count(*) FROM credit_balances WHERE business_id = ${bid})::text AS n`.execute(h.db.kysely);
  return { kept: kept.rows, fresh: fresh.rows, credits: credits.rows[0]! };
}

test('summary as of today from the kept balances equals the ledger statement to the cent, on every day after the book', async (t) => {
  const clock = settableClock('2025-01-01');
  const h = await build(t, { clock });
  const { norte, sur, c1, r5 } = await buildBook(h, clock);
  const bid = h.tenant.businessId;

  // the trigger kept what the ledger says, installment by installment
  const k = await keptAndRecomputed(h);
  assert.ok(k.kept.length > 30, 'fixture: installments with entries');
  assert.deepEqual(k.kept, k.fresh);
  assert.ok(
    k.kept.some((r) => Number(r.tolerance_days) > 0),
    'fixture: an installment whose tolerance a holiday moved after its first entry',
  );
  assert.equal(k.credits.kept, k.credits.fresh);
  assert.equal(Number(k.credits.n), 12, 'a kept row per credit with entries (the cancelled one too)');

  const days = ['2025-04-05', '2025-04-09', '2025-04-10', '2025-04-30', '2025-05-20', '2025-08-01', '2026-03-01'];
  let shortcut = 0;
  let settled = 0;
  for (const today of days) {
    clock.set(today);
    // the month close of May is an event: it posts; the other days nothing is written
    if (today === '2025-08-01') await accrue(h);
    for (const branchId of [null, norte.id, sur.id]) {
      const q = { businessId: bid, asOf: today, branchId, timezone: 'UTC', today };
      const [kept, ledger] = [await summaryFigures(h.db.kysely, q), await summaryFromLedger(h.db.kysely, q)];
      assert.deepEqual(kept, ledger, `${today} branch ${branchId}`);
    }
    // and through the API (the kept path: as_of is the business's today)
    await apiAgreesWithLedger(h, today, today);
    // credits read from their kept outstanding without working out their installments
    const skipped = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM credit_balances k JOIN credits c ON c.business_id = k.business_id AND c.id = k.credit_id
       WHERE k.business_id = ${bid} AND c.status = 'active' AND NOT k.open_from <= ${today}::date`.execute(h.db.kysely);
    shortcut += Number(skipped.rows[0]!.n);
    // installments of a credit worked out that are left out: settled before its oldest open one
    const before = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM credit_balances k
        JOIN installments i ON i.business_id = k.business_id AND i.credit_id = k.credit_id
       WHERE k.business_id = ${bid} AND k.open_from <= ${today}::date AND i.due_date < k.open_from`.execute(
      h.db.kysely,
    );
    settled += Number(before.rows[0]!.n);
  }
  assert.ok(shortcut > 0, 'some days some active credit owed nothing by then: read from its kept outstanding');
  assert.ok(settled > 0, 'some days a credit worked out had settled installments before its open one: left out');

  // the figures are not trivial: overdue credits, punitory accrued since the month close, charges
  const s = await summaryFromLedger(h.db.kysely, {
    businessId: bid,
    asOf: '2025-04-09',
    branchId: null,
    timezone: 'UTC',
  });
  assert.ok(Number(s.overdue) > 0 && Number(s.par30) > 0, 'overdue and 30 days late on 2025-04-09');
  assert.ok(Number(s.written_off_outstanding) > 0, 'a written-off credit owes');
  assert.equal(s.refinanced, 1);
  assert.equal(s.inactive, 1);
  assert.ok(Number(s.closed) >= 1, 'c4 paid off');
  assert.ok(
    s.branches.some((b) => b.branch_id === null),
    'credits without a branch',
  );
  // a credit that pays late: c1's second installment (due 2025-03-02) is overdue on 2025-04-09
  const one = await ok(h.get(`/api/credits/${c1.credit.id}`), 200);
  assert.ok(one.installments[1].status !== 'paid', 'fixture: c1 #2 unpaid');
  assert.ok(r5.credit.id, 'fixture: the refinancing credit');
});

// Migration 062: a read as of today stores each open credit's figures for the day, and the next
// read of that day uses them while nothing about the credit changed. A stale figure would show
// exactly on the first read after a write, so every write below sits between two reads, each
// compared with the ledger statement to the cent.
test('per-credit figures kept for the day: after every kind of write, the next read equals the ledger statement', async (t) => {
  const clock = settableClock('2025-01-01');
  const h = await build(t, { clock });
  const { norte, sur, c1, c2, c3, c8, c9, c11 } = await buildBook(h, clock);
  assert.ok(c11.credit.id, 'fixture');
  const bid = h.tenant.businessId;
  const plain = await newPlan(h, { installments_count: 2, days_until_first_payment: 30, cut_type: 'fixed' });

  const valid = async (today: string, creditId?: string) =>
    Number(
      (
        await sql<{ n: string }>`
          SELECT count(*)::text AS n FROM credit_balances
           WHERE business_id = ${bid} AND fig_on = ${today}::date AND fig_ver = ver
             AND (${creditId ?? null}::uuid IS NULL OR credit_id = ${creditId ?? null}::uuid)`.execute(h.db.kysely)
      ).rows[0]!.n,
    );
  let reads = 0;
  // two reads as of today for the business and each branch (the first stores what it worked out,
  // the second reads it), each equal to the ledger's; then through the API
  const check = async (label: string) => {
    const today = clock().toISOString().slice(0, 10);
    for (const branchId of [null, norte.id, sur.id]) {
      const q = { businessId: bid, asOf: today, branchId, timezone: 'UTC', today };
      const ledger = await summaryFromLedger(h.db.kysely, q);
      for (let i = 0; i < 2; i++) {
        assert.deepEqual(
          await summaryFigures(h.db.kysely, q, { store: true }),
          ledger,
          `${label}: read ${i + 1}, branch ${branchId}`,
        );
        reads++;
      }
    }
    await apiAgreesWithLedger(h, today, label);
    assert.ok((await valid(today)) > 0, `${label}: the reads stored the open credits' figures for ${today}`);
  };
  const pay = (c: any, amount: number) => ok(h.post(`/api/credits/${c.credit.id}/payments`, { amount }));
  // a write made a credit's stored figures invalid (its ver moved past the one they were computed at)
  const staled = async (label: string, creditId: string) =>
    assert.equal(
      await valid(clock().toISOString().slice(0, 10), creditId),
      0,
      `${label}: the credit's figures are no longer valid`,
    );

  clock.set('2025-04-09');
  await check('first reads of the day');
  for (const c of [c1, c2, c3, c8, c9, c11])
    assert.equal(await valid('2025-04-09', c.credit.id), 1, 'fixture: an open credit with figures kept');

  // a partial payment of an overdue credit, then its reversal
  const p = await pay(c2, 40);
  await staled('payment', c2.credit.id);
  await check('after a payment');
  await ok(h.post(`/api/credits/${c2.credit.id}/payments/${paymentIdOf(p)}/reverse`, { reason: 'bounced' }), 200);
  await staled('reversal', c2.credit.id);
  await check('after a reversal');
  // a payoff of everything due (its charges and punitory): the credit no longer owes anything overdue
  const due1 = await ok(h.get(`/api/credits/${c1.credit.id}/payoff`), 200);
  await pay(c1, due1.breakdown.due + due1.breakdown.punitory + due1.breakdown.charges);
  await staled('payment of everything due', c1.credit.id);
  await check('after everything due was paid');
  // a write-off stops punitory and charges at its date
  await ok(h.post(`/api/credits/${c3.credit.id}/write-off`, { reason: 'lost' }), 200);
  await staled('write-off', c3.credit.id);
  await check('after a write-off');
  // a refinance closes one open credit and opens another
  await ok(h.post(`/api/credits/${c9.credit.id}/refinance`, { credit_config_id: plain.id }));
  await check('after a refinance');
  // a new credit, backdated: overdue from its first read, no figures kept before
  const cl = await newClient(h, 'Kept late');
  const late = await ok(
    h.post(`/api/clients/${cl.id}/credits`, { credit_config_id: plain.id, amount: 300, start_date: '2025-01-15' }),
  );
  await check('after a new credit');
  assert.equal(await valid('2025-04-09', late.credit.id), 1, 'the new overdue credit got its figures');
  // a day passing: nothing is written, every figure of yesterday is stale
  clock.set('2025-04-10');
  assert.equal(await valid('2025-04-10'), 0, 'no figure is valid for a day no read worked out');
  await check('the next day');
  // the month close: the punitory posted (an accrual run, entries on many credits at once)
  clock.set('2025-05-01');
  await check('the first of the month');
  const { at } = (
    await sql<{ at: string }>`SELECT max(created_at)::text AS at FROM ledger WHERE business_id = ${bid}`.execute(
      h.db.kysely,
    )
  ).rows[0]!;
  await accrue(h);
  const posted = await sql<{ id: string }>`
    SELECT DISTINCT credit_id::text AS id FROM ledger WHERE business_id = ${bid} AND created_at > ${at}::timestamptz`.execute(
    h.db.kysely,
  );
  assert.ok(posted.rows.length > 0, 'fixture: the month close posted punitory');
  for (const c of posted.rows) await staled('accrual', c.id);
  await check('after punitory was posted');
  clock.set('2025-05-20');
  await check('weeks later');
  // a payment on a credit of the new day after its figures were kept
  await pay(c8, 25);
  await staled('payment on a later day', c8.credit.id);
  await check('after a payment on a later day');
  assert.ok(reads >= 60, 'the reads compared');
});

test('a read that does not store (a replica) writes nothing and gives the same figures', async (t) => {
  const clock = settableClock('2025-01-01');
  const h = await build(t, { clock });
  await buildBook(h, clock);
  const bid = h.tenant.businessId;
  clock.set('2025-04-09');
  const q = { businessId: bid, asOf: '2025-04-09', branchId: null, timezone: 'UTC', today: '2025-04-09' };
  const r = await h.db.kysely.transaction().execute(async (trx) => {
    await sql`SET TRANSACTION READ ONLY`.execute(trx);
    return summaryFigures(trx, q);
  });
  assert.deepEqual(r, await summaryFromLedger(h.db.kysely, q));
  const n = await sql<{
    n: string;
  }>`SELECT count(*)::text AS n FROM credit_balances WHERE business_id = ${bid} AND fig_on IS NOT NULL`.execute(
    h.db.kysely,
  );
  assert.equal(n.rows[0]!.n, '0', 'nothing stored');
});

test('the daily refresh stores the figures of each business once its day starts, once a day', async (t) => {
  const clock = settableClock('2025-01-01');
  const h = await build(t, { clock });
  await buildBook(h, clock);
  const bid = h.tenant.businessId;
  const valid = async (today: string) =>
    Number(
      (
        await sql<{ n: string }>`SELECT count(*)::text AS n FROM credit_balances
           WHERE business_id = ${bid} AND fig_on = ${today}::date AND fig_ver = ver`.execute(h.db.kysely)
      ).rows[0]!.n,
    );
  const lastDay = new Map<string, string>();
  clock.set('2025-04-09');
  assert.equal(await valid('2025-04-09'), 0, 'fixture: nothing stored yet');
  assert.ok((await refreshDailySummaryFigures(h.db, clock(), lastDay)) >= 1, 'the business refreshed');
  const stored = await valid('2025-04-09');
  assert.ok(stored > 0, 'the open credits have their figures for the day');
  assert.equal(await refreshDailySummaryFigures(h.db, clock(), lastDay), 0, 'the same day: nothing to refresh');
  const q = { businessId: bid, asOf: '2025-04-09', branchId: null, timezone: 'UTC', today: '2025-04-09' };
  assert.deepEqual(await summaryFigures(h.db.kysely, q), await summaryFromLedger(h.db.kysely, q));
  clock.set('2025-04-10');
  assert.ok((await refreshDailySummaryFigures(h.db, clock(), lastDay)) >= 1, 'the next day: refreshed again');
  assert.equal(await valid('2025-04-10'), stored, 'the same open credits, now for the new day');
});
