import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  atStorableMax,
  cumulativePunitory,
  punitoryToPost,
  money,
  round2,
  addDays,
  Dec,
  STORABLE_MAX,
} from '../../src/domain/index.ts';
import type { Decimal, InstallmentPayment, PunitoryTerms, PunitoryInput } from '../../src/domain/index.ts';

const DUE = '2024-01-01';
const d = (k: number) => addDays(DUE, k); // due date + k
const pay = (k: number, principal: number | string, punitory: number | string = 0): InstallmentPayment => ({
  paidOn: d(k),
  principal: money(principal),
  punitory: money(punitory),
});
const terms = (t: Partial<PunitoryTerms> = {}): PunitoryTerms => ({
  dailyRate: money('0.005'),
  mode: 'simple_outstanding',
  graceDays: 0,
  maxDays: 0,
  capPct: money(0),
  ...t,
});
const P = (input: Partial<PunitoryInput> & { asOf: string }, t: Partial<PunitoryTerms> = {}) =>
  cumulativePunitory({ amount: money(1000), dueDate: DUE, payments: [], ...input }, terms(t)).toFixed(2);

test('simple 0.5 %/day on 1000 paid in full on due + 10: 10 days → 50.00', () => {
  // days 1..10 chargeable (the payment counts from due + 11): 10 × 0.005 × 1000 = 50.00
  assert.equal(P({ payments: [pay(10, 1000)], asOf: d(60) }), '50.00');
  // nothing is charged on or before the due date; paid on the due date → 0
  assert.equal(P({ asOf: DUE }), '0.00');
  assert.equal(P({ payments: [pay(0, 1000)], asOf: d(60) }), '0.00');
  // unpaid, as of due + 3: 3 × 5 = 15.00
  assert.equal(P({ asOf: d(3) }), '15.00');
});

test('grace is a tolerance: within it nothing, beyond it every day since the due date', () => {
  // grace 5, paid on due + 5: 5 days late ≤ 5 → 0
  assert.equal(P({ payments: [pay(5, 1000)], asOf: d(60) }, { graceDays: 5 }), '0.00');
  // paid on due + 6: 6 > 5 → all 6 days: 6 × 5 = 30.00 (not 1 day)
  assert.equal(P({ payments: [pay(6, 1000)], asOf: d(60) }, { graceDays: 5 }), '30.00');
  // unpaid: as of due + 5 still 0, as of due + 6 jumps to 30.00
  assert.equal(P({ asOf: d(5) }, { graceDays: 5 }), '0.00');
  assert.equal(P({ asOf: d(6) }, { graceDays: 5 }), '30.00');
});

test('max_punitory_days stops the chargeable days', () => {
  // max 7, unpaid as of due + 30: 7 × 5 = 35.00
  assert.equal(P({ asOf: d(30) }, { maxDays: 7 }), '35.00');
  // 0 = no limit: 30 × 5 = 150.00
  assert.equal(P({ asOf: d(30) }, { maxDays: 0 }), '150.00');
});

test('cap 50 % of the installment amount', () => {
  // 200 days × 5 = 1000.00 uncapped → at most 50 % × 1000 = 500.00
  assert.equal(P({ asOf: d(200) }, { capPct: money(50) }), '500.00');
  // below the cap it does not bind: 20 × 5 = 100.00
  assert.equal(P({ asOf: d(20) }, { capPct: money(50) }), '100.00');
  // 33.3 % of 1000 = 333.00
  assert.equal(P({ asOf: d(200) }, { capPct: money('33.3') }), '333.00');
});

test('a partial payment lowers the simple base from the next day', () => {
  // 500 paid on due + 4; as of due + 10:
  // days 1..4 on 1000 → 4 × 5 = 20; days 5..10 on 500 → 6 × 2.5 = 15; total 35.00
  assert.equal(P({ payments: [pay(4, 500)], asOf: d(10) }), '35.00');
  // then the rest paid on due + 10 → same 35.00 however late asOf is
  assert.equal(P({ payments: [pay(4, 500), pay(10, 500)], asOf: d(90) }), '35.00');
});

test('full_amount ignores partial payments, stops at full payment', () => {
  // 500 paid on due + 4, as of due + 10: 10 × 0.005 × 1000 = 50.00 (simple gives 35.00)
  assert.equal(P({ payments: [pay(4, 500)], asOf: d(10) }, { mode: 'full_amount' }), '50.00');
  assert.equal(P({ payments: [pay(4, 500), pay(10, 500)], asOf: d(90) }, { mode: 'full_amount' }), '50.00');
});

test('compound vs simple', () => {
  // unpaid 10 days: simple 10 × 5 = 50.00; compound 1000 × (1.005^10 − 1) = 51.1401… → 51.14
  assert.equal(P({ asOf: d(10) }), '50.00');
  assert.equal(P({ asOf: d(10) }, { mode: 'compound' }), '51.14');
  // rate 1 %, punitory paid resets the base: day 1 on 1000 → 10; day 2 on 1010 → 10.10;
  // 20.10 of punitory paid on due + 2 → day 3 on 1000 → 10, day 4 on 1010 → 10.10; total 40.20
  assert.equal(
    P({ payments: [pay(2, 0, '20.10')], asOf: d(4) }, { mode: 'compound', dailyRate: money('0.01') }),
    '40.20',
  );
  // without that payment: 1000 × (1.01^4 − 1) = 40.60401 → 40.60
  assert.equal(P({ asOf: d(4) }, { mode: 'compound', dailyRate: money('0.01') }), '40.60');
});

test('stopDate (write-off): no day after it is chargeable', () => {
  // written off on due + 3, as of due + 10: 3 × 5 = 15.00
  assert.equal(P({ asOf: d(10), stopDate: d(3) }), '15.00');
  assert.equal(P({ asOf: d(10), stopDate: null }), '50.00');
  assert.equal(P({ asOf: d(10), stopDate: d(-1) }), '0.00');
});

test('payments after asOf are ignored; unsorted payments are fine', () => {
  assert.equal(P({ payments: [pay(5, 1000)], asOf: d(3) }), '15.00');
  assert.equal(P({ payments: [pay(10, 500), pay(4, 500)], asOf: d(90) }), '35.00');
});

test('punitoryToPost is the difference to what is posted', () => {
  assert.equal(punitoryToPost(money(50), money(30)).toFixed(2), '20.00');
  assert.equal(punitoryToPost(money(35), money(50)).toFixed(2), '-15.00'); // a backdated payment lowered it
  assert.equal(punitoryToPost(money(50), money(50)).toFixed(2), '0.00');
});

test('a very late installment is computed in a handful of operations, not one per day', () => {
  const t0 = performance.now();
  const r = cumulativePunitory(
    {
      amount: money(1000),
      dueDate: '2000-01-01',
      payments: [{ paidOn: '2001-01-01', principal: money(1), punitory: money(0) }],
      asOf: '7000-01-01',
    },
    terms({ mode: 'compound', dailyRate: money('0.001') }),
  );
  assert.ok(r.gt(0), 'holds: r.gt(0)');
  // day by day this is 1.8 million steps of decimal arithmetic, many seconds; a bound this loose survives a loaded machine
  assert.ok(performance.now() - t0 < 1500, 'a handful of operations, not one per day');
});

test('an amount that cannot be stored stops growing at the storable maximum, in every mode, without computing it', () => {
  const huge = { amount: money('999999999999.99'), dueDate: '2000-01-01', payments: [] };
  for (const mode of ['simple_outstanding', 'full_amount', 'compound'] as const) {
    const t0 = performance.now();
    // 999,999 a day (the largest rate a plan takes) for a century: a compound figure of 600,000 digits
    const r = cumulativePunitory({ ...huge, asOf: '2100-01-01' }, terms({ mode, dailyRate: money('999999') }));
    assert.equal(r.toFixed(2), '999999999999.99', mode);
    assert.ok(atStorableMax(r), 'holds: atStorableMax(r)');
    assert.ok(performance.now() - t0 < 1500, `${mode}: not computed day by day nor digit by digit`);
  }
  // compound takes a small amount there too; the cap still applies below the maximum
  const small = { amount: money('0.01'), dueDate: '2000-01-01', payments: [], asOf: '2001-01-01' };
  const compound = terms({ mode: 'compound', dailyRate: money('999999') });
  assert.equal(cumulativePunitory(small, compound).toFixed(2), STORABLE_MAX.toFixed(2));
  assert.equal(cumulativePunitory(small, { ...compound, capPct: money(50) }).toFixed(2), '0.01'); // 0.005, half away from zero
  // just below it: the exact figure
  const below = cumulativePunitory(
    { amount: money('999999999999.98'), dueDate: '2024-01-01', payments: [], asOf: '2024-01-02' },
    terms({ dailyRate: money('0.999999') }),
  );
  assert.equal(below.toFixed(2), '999998999999.98');
  assert.ok(!atStorableMax(below), 'holds: !atStorableMax(below)');
});

// ---- oracle: the rules applied literally, one day at a time, rounded at the end ----
function naive(input: PunitoryInput, t: PunitoryTerms): Decimal {
  const amount = new Dec(input.amount);
  const asOfK = Math.round((Date.parse(input.asOf) - Date.parse(input.dueDate)) / 86_400_000);
  const stopK = input.stopDate
    ? Math.round((Date.parse(input.stopDate) - Date.parse(input.dueDate)) / 86_400_000)
    : Infinity;
  const kOf = (p: InstallmentPayment) => Math.round((Date.parse(p.paidOn) - Date.parse(input.dueDate)) / 86_400_000);
  if (asOfK <= 0) return new Dec(0);
  // the day (index) the amount became fully paid, among payments made by asOf
  let paid = new Dec(0);
  let fullK: number | null = null;
  for (const p of [...input.payments].filter((p) => kOf(p) <= asOfK).sort((a, b) => kOf(a) - kOf(b))) {
    paid = paid.plus(p.principal);
    if (fullK === null && paid.gte(amount)) fullK = kOf(p);
  }
  if (Math.max(0, fullK ?? asOfK) <= t.graceDays) return new Dec(0);
  let accrued = new Dec(0);
  for (let k = 1; k <= asOfK; k++) {
    if (t.maxDays > 0 && k > t.maxDays) break;
    if (k > stopK) break;
    const before = input.payments.filter((p) => kOf(p) < k); // a payment counts from the day after it
    const principalPaid = before.reduce((a, p) => a.plus(p.principal), new Dec(0));
    const punitoryPaid = before.reduce((a, p) => a.plus(p.punitory), new Dec(0));
    if (principalPaid.gte(amount)) continue;
    let b: Decimal;
    if (t.mode === 'full_amount') b = amount;
    else if (t.mode === 'simple_outstanding') b = amount.minus(principalPaid);
    else b = amount.minus(principalPaid).plus(accrued).minus(punitoryPaid);
    if (b.lt(0)) b = new Dec(0);
    accrued = accrued.plus(t.dailyRate.times(b));
  }
  // an amount that cannot be stored stops growing at the storable maximum
  let r = Dec.min(round2(accrued), STORABLE_MAX);
  if (t.capPct.gt(0)) r = Dec.min(r, round2(t.capPct.div(100).times(amount)));
  return Dec.max(r, 0);
}

const arbTerms: fc.Arbitrary<PunitoryTerms> = fc.record({
  dailyRate: fc
    .oneof(
      fc.constantFrom('0', '0.001', '0.005', '0.01', '0.05'),
      fc.integer({ min: 0, max: 1000 }).map((n) => String(n / 10000)),
    )
    .map((s) => money(s)),
  mode: fc.constantFrom('simple_outstanding' as const, 'compound' as const, 'full_amount' as const),
  graceDays: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 15 })),
  maxDays: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 })),
  capPct: fc.oneof(
    fc.constant(money(0)),
    fc.integer({ min: 1, max: 2000 }).map((n) => money(n).div(10)),
  ),
});

// amount in cents; payments as (day offset, share of the remaining amount, punitory paid in cents)
const arbHistory = fc
  .record({
    cents: fc.integer({ min: 1, max: 5_000_000 }),
    dueOffset: fc.integer({ min: 0, max: 1000 }),
    pays: fc.array(
      fc.record({
        k: fc.integer({ min: -10, max: 400 }),
        share: fc.integer({ min: 0, max: 100 }),
        punCents: fc.integer({ min: 0, max: 20_000 }),
      }),
      { maxLength: 8 },
    ),
    asOfK: fc.integer({ min: -5, max: 500 }),
    stopK: fc.option(fc.integer({ min: -5, max: 500 }), { nil: null }),
  })
  .map((r) => {
    const amount = money(r.cents).div(100);
    const dueDate = addDays('2022-01-01', r.dueOffset);
    let left = amount;
    const payments: InstallmentPayment[] = [...r.pays]
      .sort((a, b) => a.k - b.k)
      .map((p) => {
        // never more principal than the installment amount, like the allocation
        const principal = round2(left.times(p.share).div(100));
        left = left.minus(principal);
        return { paidOn: addDays(dueDate, p.k), principal, punitory: money(p.punCents).div(100) };
      });
    return {
      amount,
      dueDate,
      payments,
      asOf: addDays(dueDate, r.asOfK),
      stopDate: r.stopK === null ? null : addDays(dueDate, r.stopK),
    };
  });

test('property: piecewise equals the day-by-day oracle', () => {
  fc.assert(
    fc.property(arbHistory, arbTerms, (h, t) => {
      const got = cumulativePunitory(h, t);
      const want = naive(h, t);
      const tol = t.mode === 'compound' ? '0.01' : '0';
      assert.ok(got.minus(want).abs().lte(tol), `got ${got.toFixed(2)} want ${want.toFixed(2)}`);
    }),
    { numRuns: 400 },
  );
});

test('property: monotonic in asOf, within the cap, 0 within grace, never negative', () => {
  fc.assert(
    fc.property(arbHistory, arbTerms, fc.integer({ min: 0, max: 60 }), (h, t, step) => {
      const a = cumulativePunitory(h, t);
      const b = cumulativePunitory({ ...h, asOf: addDays(h.asOf, step) }, t);
      assert.ok(b.gte(a), `not monotonic: ${a.toFixed(2)} then ${b.toFixed(2)}`);
      assert.ok(a.gte(0), 'holds: a.gte(0)');
      if (t.capPct.gt(0))
        assert.ok(
          b.lte(round2(t.capPct.div(100).times(h.amount))),
          'holds: b.lte(round2(t.capPct.div(100).times(h.amount)))',
        );
      // as of any day within grace of the due date nothing is owed
      const withinGrace = addDays(h.dueDate, Math.min(t.graceDays, step));
      assert.equal(cumulativePunitory({ ...h, asOf: withinGrace }, t).toFixed(2), '0.00');
      assert.equal(punitoryToPost(a, a).toFixed(2), '0.00');
    }),
    { numRuns: 400 },
  );
});
