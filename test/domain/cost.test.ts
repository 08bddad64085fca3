import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Dec, buildSchedule, creditCost, daysBetween, fromDay, money } from '../../src/domain/index.ts';
import type { Amortization, Decimal, Schedule, ScheduleInput } from '../../src/domain/index.ts';

const base: ScheduleInput = {
  amount: money(1000),
  interestRate: money(0),
  installmentsCount: 1,
  daysUntilFirstPayment: 30,
  cutType: 'fixed',
  paymentDay: 10,
  startDate: '2026-01-15',
};
const Hundred = Dec.clone({ precision: 100 });
const Dec100 = (x: Decimal | number) => new Hundred(x);
const costOf = (input: ScheduleInput, s: Schedule = buildSchedule(input)) =>
  creditCost({
    amount: input.amount,
    startDate: input.startDate,
    installments: s.installments,
    amortization: input.amortization ?? 'flat',
    interestRate: input.interestRate,
  });
const shown = (c: ReturnType<typeof creditCost>) => ({
  tna: c.tna.toFixed(6),
  tea: c.tea.toFixed(6),
  cft_tea: c.cft_tea === null ? null : c.cft_tea.toFixed(6),
});

/**
 * An independent XIRR in plain floating point (a check, not money): Newton on r for
 * Σ a / (1 + r)^t = pv from r = 0. The function is decreasing and convex in r, so from a point
 * where it is positive Newton climbs to the root without overshooting.
 */
function xirr(pv: number, flows: { t: number; a: number }[]): number {
  let r = 0;
  for (let k = 0; k < 10_000; k++) {
    let f = -pv;
    let df = 0;
    for (const { t, a } of flows) {
      f += a * (1 + r) ** -t;
      df -= t * a * (1 + r) ** (-t - 1);
    }
    const next = r - f / df;
    if (Math.abs(next - r) < 1e-13 * Math.max(1, Math.abs(r))) return next;
    r = next;
  }
  throw new Error('xirr did not converge');
}
const cftFlows = (startDate: string, s: Schedule) =>
  s.installments.map((i) => ({ t: daysBetween(startDate, i.dueDate) / 365, a: Number(i.amount) }));
/**
 * Within a millionth of the float result; for rates of millions (a day's credit at a flat 5 %: a
 * CFT of 2.4e9) floating point itself is off by more, so the margin grows by 1e-10 of the rate.
 * The decimal check of the property below is exact.
 */
const near = (actual: Decimal | null, expected: number, what: string) => {
  assert.ok(actual !== null, `${what}: null`);
  assert.ok(
    Math.abs(Number(actual) - expected) <= 0.000001 + 1e-10 * Math.abs(expected),
    `${what}: ${actual} against ${expected}`,
  );
};

// The literals below were computed once with python3's decimal module (prec 60), by bisection
// on r in [0, 1000] for 300 halvings of Σ a / (1 + r)^t − pv, then rounded half up to 6 decimals:
//   f = lambda r: sum(a / (1 + r) ** t for t, a in flows) - pv
//   for _ in range(300): m = (lo + hi) / 2; lo, hi = (m, hi) if f(m) > 0 else (lo, m)
// with t = days / 365 for the CFT (due date − start date) and t = 1, 2, 3 for flat's monthly rate.

test('french: 100,000 at 120 % TNA in 12 with 21 % VAT', () => {
  // tna = 1.2; tea = (1 + 1.2 / 12)^12 − 1 = 1.1^12 − 1 = 2.138428376721 → 2.138428
  // cft: the installments of test/domain/schedule.test.ts (16776.33 … 14956.59) due 2026-02-14 …
  // 2027-01-14, 30, 58, 89, 119, 150, 180, 211, 242, 272, 303, 333, 364 days after 2026-01-15:
  // python gives 3.00450563747… → 3.004506
  const input: ScheduleInput = {
    ...base,
    amount: money(100000),
    interestRate: money('1.2'),
    installmentsCount: 12,
    amortization: 'french',
    vatRate: money('0.21'),
  };
  const s = buildSchedule(input);
  assert.deepEqual(
    s.installments.map((i) => daysBetween(input.startDate, i.dueDate)),
    [30, 58, 89, 119, 150, 180, 211, 242, 272, 303, 333, 364],
  );
  const c = costOf(input, s);
  assert.deepEqual(shown(c), { tna: '1.200000', tea: '2.138428', cft_tea: '3.004506' });
  near(c.cft_tea, xirr(100000, cftFlows(input.startDate, s)), 'cft against the float XIRR');
});

test('flat: 1000 at 10 % in 3 with 21 % VAT', () => {
  // principal + interest 366.67, 366.67, 366.66 at months 1, 2, 3: python's monthly rate
  // 0.04921248730700… → tna = 12 × it = 0.590550; tea = (1 + it)^12 − 1 = 0.779760
  // cft: 373.67, 373.67, 373.66 at 30, 58, 89 days → 1.041082
  const input: ScheduleInput = { ...base, interestRate: money('0.1'), installmentsCount: 3, vatRate: money('0.21') };
  const s = buildSchedule(input);
  const c = costOf(input, s);
  assert.deepEqual(shown(c), { tna: '0.590550', tea: '0.779760', cft_tea: '1.041082' });
  const monthly = xirr(
    1000,
    s.installments.map((i, k) => ({ t: k + 1, a: Number(i.principal) + Number(i.interest) })),
  );
  near(c.tna, 12 * monthly, 'tna against the float rate');
  near(c.tea, (1 + monthly) ** 12 - 1, 'tea against the float rate');
  near(c.cft_tea, xirr(1000, cftFlows(input.startDate, s)), 'cft against the float XIRR');
});

test('exact cases: one installment a year later; a month later; no interest', () => {
  // 1000 at 10 % with 21 % VAT, due 365 days later (2025-01-01 → 2026-01-01): 1121 → cft 0.121;
  // months 1: (1100 / 1000) − 1 = 0.1 a month → tna 1.2, tea 1.1^12 − 1 = 2.138428
  const year = { ...base, interestRate: money('0.1'), vatRate: money('0.21'), daysUntilFirstPayment: 365 };
  assert.deepEqual(shown(costOf({ ...year, startDate: '2025-01-01' })), {
    tna: '1.200000',
    tea: '2.138428',
    cft_tea: '0.121000',
  });
  // 1000 at 5 % in 1: tna 0.6, tea 1.05^12 − 1 = 0.795856326… → 0.795856
  assert.deepEqual(shown(costOf({ ...base, interestRate: money('0.05'), daysUntilFirstPayment: 365 })), {
    tna: '0.600000',
    tea: '0.795856',
    cft_tea: '0.050000',
  });
  for (const amortization of ['flat', 'french'] as const)
    for (const days of [0, 30])
      assert.deepEqual(
        shown(
          costOf({ ...base, installmentsCount: 6, amortization, vatRate: money('0.21'), daysUntilFirstPayment: days }),
        ),
        { tna: '0.000000', tea: '0.000000', cft_tea: '0.000000' },
      );
});

test('cft_tea is null when what falls due on the start date repays the amount lent and more is owed', () => {
  const c = costOf({ ...base, interestRate: money('0.1'), daysUntilFirstPayment: 0 });
  assert.equal(c.cft_tea, null);
  assert.equal(c.tna.toFixed(6), '1.200000'); // flat still counts it as paid a month later
  // 100 at 82.64 % with 21 % VAT in 2, the first on the start date: 100.00 then, 99.99 a month later
  const two = { ...base, amount: money(100), interestRate: money('0.8264'), vatRate: money('0.21') };
  assert.equal(costOf({ ...two, daysUntilFirstPayment: 0, installmentsCount: 2 }).cft_tea, null);
  // several installments, the first on the start date: a rate exists
  const s = costOf({ ...base, interestRate: money('0.1'), daysUntilFirstPayment: 0, installmentsCount: 3 });
  assert.ok(s.cft_tea?.gt(0), 'holds: s.cft_tea?.gt(0)');
});

test('refuses what is not a schedule', () => {
  const ok = {
    amount: 1000,
    startDate: '2026-01-15',
    installments: [{ dueDate: '2026-02-14', amount: '1100', principal: '1000', interest: '100', vat: '0' }],
    amortization: 'flat' as Amortization,
    interestRate: '0.1',
  };
  assert.equal(creditCost(ok).tna.toFixed(6), '1.200000');
  assert.throws(() => creditCost({ ...ok, amount: 0 }), RangeError);
  assert.throws(() => creditCost({ ...ok, installments: [] }), RangeError);
  assert.throws(() => creditCost({ ...ok, amortization: 'german' as Amortization }), RangeError);
  assert.throws(
    () => creditCost({ ...ok, installments: [{ ...ok.installments[0]!, dueDate: '2026-01-14' }] }),
    RangeError,
  );
  assert.throws(() => creditCost({ ...ok, installments: [{ ...ok.installments[0]!, amount: '-1' }] }), RangeError);
});

const terms = fc.record({
  cents: fc.integer({ min: 10_000, max: 1_000_000_000 }),
  rateBp: fc.integer({ min: 0, max: 30_000 }),
  vatBp: fc.constantFrom(0, 1050, 2100),
  n: fc.integer({ min: 1, max: 12 }),
  days: fc.integer({ min: 0, max: 120 }),
  cutType: fc.constantFrom('fixed' as const, 'monthly' as const),
  paymentDay: fc.integer({ min: 1, max: 28 }),
  startDay: fc.integer({ min: 18_000, max: 25_000 }),
  amortization: fc.constantFrom('flat' as const, 'french' as const),
});

test('property: cft_tea agrees with a float XIRR to 6 decimals and brackets the root in decimals', () => {
  fc.assert(
    fc.property(terms, (r) => {
      const input: ScheduleInput = {
        amount: money(r.cents).div(100),
        interestRate: money(r.rateBp).div(10_000),
        installmentsCount: r.n,
        daysUntilFirstPayment: r.days,
        cutType: r.cutType,
        paymentDay: r.paymentDay,
        startDate: fromDay(r.startDay),
        amortization: r.amortization,
        vatRate: money(r.vatBp).div(10_000),
      };
      let s: Schedule;
      try {
        s = buildSchedule(input);
      } catch {
        return; // a tiny flat interest refused (schedule.test.ts covers it)
      }
      const c = costOf(input, s);
      const flows = cftFlows(input.startDate, s);
      // what falls due on the start date repays the amount lent and more is owed: no rate does it
      const onStart = s.installments
        .filter((i) => i.dueDate === input.startDate)
        .reduce((sum, i) => sum.plus(i.amount), new Dec(0));
      if (onStart.gte(input.amount) && s.total.gt(input.amount)) {
        assert.equal(c.cft_tea, null);
        return;
      }
      if (s.total.eq(input.amount)) assert.equal(c.cft_tea?.toFixed(6), '0.000000');
      near(c.cft_tea, xirr(Number(input.amount), flows), 'cft against the float XIRR');
      // in decimals: the installments are worth more than the amount lent a millionth below the
      // rate shown and less a millionth above it (the rate shown is within half a millionth)
      const worth = (rate: Decimal) =>
        s.installments.reduce(
          (sum, i) =>
            sum.plus(
              i.amount.div(new Dec(1).plus(rate).pow(new Dec(daysBetween(input.startDate, i.dueDate)).div(365))),
            ),
          new Dec(0),
        );
      // (below a million: beyond it the 40 digits of Dec cannot tell a millionth of the rate apart)
      if (!s.total.eq(input.amount) && c.cft_tea!.lt(1e6)) {
        assert.ok(
          worth(c.cft_tea!.minus('0.000001')).gt(input.amount),
          "holds: worth(c.cft_tea.minus('0.000001')).gt(input.amount)",
        );
        assert.ok(
          worth(c.cft_tea!.plus('0.000001')).lt(input.amount),
          "holds: worth(c.cft_tea.plus('0.000001')).lt(input.amount)",
        );
      }
      // one installment: the rate is (amount / lent)^(365 / days) − 1, exactly (100 digits here), for
      // any rate below 1e20 (the 40 digits of the solver; a day's credit at a flat 47 % is a CFT of
      // 1e71, shown to 20 significant digits)
      const days = daysBetween(input.startDate, s.installments[0]!.dueDate);
      if (r.n === 1 && days > 0 && c.cft_tea!.lt('1e20')) {
        const exact = Dec100(s.total).div(input.amount).pow(Dec100(365).div(days)).minus(1);
        assert.equal(c.cft_tea!.toFixed(6), exact.toFixed(6, Dec.ROUND_HALF_UP));
      }
      // tna and tea
      if (r.amortization === 'french') {
        assert.equal(c.tna.toFixed(6), input.interestRate.toFixed(6));
        near(c.tea, (1 + Number(input.interestRate) / 12) ** 12 - 1, 'french tea');
      } else {
        const monthly = xirr(
          Number(input.amount),
          s.installments.map((i, k) => ({ t: k + 1, a: Number(i.principal) + Number(i.interest) })),
        );
        near(c.tna, 12 * monthly, 'flat tna');
        near(c.tea, (1 + monthly) ** 12 - 1, 'flat tea');
      }
    }),
    { numRuns: 200 },
  );
});
