import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  addMonthsClamped,
  buildSchedule,
  firstDueDate,
  scheduleFor,
  money,
  round2,
  toMoneyString,
  compareDates,
  DomainError,
  fromDay,
} from '../../src/domain/index.ts';
import type { Decimal as Dec, ScheduleInput } from '../../src/domain/index.ts';

const base: ScheduleInput = {
  amount: money(1000),
  interestRate: money(0),
  installmentsCount: 1,
  daysUntilFirstPayment: 30,
  cutType: 'fixed',
  paymentDay: 10,
  startDate: '2024-01-01',
};
const amounts = (s: ReturnType<typeof buildSchedule>) => s.installments.map((i) => toMoneyString(i.amount));
const dates = (s: ReturnType<typeof buildSchedule>) => s.installments.map((i) => i.dueDate);

test('1000 at 35 % in 3: total 1350.00, 450 each', () => {
  // 1000 × 1.35 = 1350.00; 1350 / 3 = 450.00; last = 1350 − 2 × 450 = 450.00
  const s = buildSchedule({ ...base, interestRate: money('0.35'), installmentsCount: 3 });
  assert.equal(toMoneyString(s.total), '1350.00');
  assert.deepEqual(amounts(s), ['450.00', '450.00', '450.00']);
});

test('1000 at 10 % in 3: the last takes the remainder', () => {
  // 1000 × 1.1 = 1100.00; 1100 / 3 = 366.666… → 366.67; last = 1100 − 2 × 366.67 = 366.66
  const s = buildSchedule({ ...base, interestRate: money('0.1'), installmentsCount: 3 });
  assert.equal(toMoneyString(s.total), '1100.00');
  assert.deepEqual(amounts(s), ['366.67', '366.67', '366.66']);
});

test('total rounds half away from zero', () => {
  // 333.33 × 1.15 = 383.3295 → 383.33; 100.05 × 1.05 = 105.0525 → 105.05; 0.10 × 1.05 = 0.105 → 0.11
  assert.equal(
    toMoneyString(buildSchedule({ ...base, amount: money('333.33'), interestRate: money('0.15') }).total),
    '383.33',
  );
  assert.equal(
    toMoneyString(buildSchedule({ ...base, amount: money('100.05'), interestRate: money('0.05') }).total),
    '105.05',
  );
  assert.equal(
    toMoneyString(buildSchedule({ ...base, amount: money('0.10'), interestRate: money('0.05') }).total),
    '0.11',
  );
});

test('fixed: months counted from the first due date, clamped, not chained', () => {
  // 2024-01-01 + 30 days = 2024-01-31; +1 month → Feb 29 (leap), +2 → Mar 31 (not Mar 29), +3 → Apr 30
  const s = buildSchedule({ ...base, installmentsCount: 4 });
  assert.deepEqual(dates(s), ['2024-01-31', '2024-02-29', '2024-03-31', '2024-04-30']);
});

test('fixed with 0 days: first due on the start date', () => {
  const s = buildSchedule({ ...base, daysUntilFirstPayment: 0, installmentsCount: 2, startDate: '2024-05-15' });
  assert.deepEqual(dates(s), ['2024-05-15', '2024-06-15']);
});

test('monthly with payment_day 10', () => {
  const m = { ...base, cutType: 'monthly' as const, paymentDay: 10, installmentsCount: 3 };
  // 2024-01-15 + 30 = 2024-02-14, past the 10th → 2024-03-10, then 04-10, 05-10
  assert.deepEqual(dates(buildSchedule({ ...m, startDate: '2024-01-15' })), ['2024-03-10', '2024-04-10', '2024-05-10']);
  // 2024-01-01 + 9 = 2024-01-10, on the 10th itself ("on or after") → 2024-01-10
  assert.deepEqual(dates(buildSchedule({ ...m, startDate: '2024-01-01', daysUntilFirstPayment: 9 })), [
    '2024-01-10',
    '2024-02-10',
    '2024-03-10',
  ]);
  // 2024-12-05 + 10 = 2024-12-15 → 2025-01-10 across the year
  assert.deepEqual(dates(buildSchedule({ ...m, startDate: '2024-12-05', daysUntilFirstPayment: 10 })), [
    '2025-01-10',
    '2025-02-10',
    '2025-03-10',
  ]);
});

test('refuses what cannot be booked', () => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof DomainError, 'holds: e instanceof DomainError');
      return e.rule;
    }
    return null;
  };
  assert.equal(
    code(() => buildSchedule({ ...base, amount: money(0) })),
    'invalid_amount',
  );
  assert.equal(
    code(() => buildSchedule({ ...base, installmentsCount: 0 })),
    'invalid_installments_count',
  );
  assert.equal(
    code(() => buildSchedule({ ...base, installmentsCount: 1.5 })),
    'invalid_installments_count',
  );
  assert.equal(
    code(() => buildSchedule({ ...base, cutType: 'monthly', paymentDay: 31 })),
    'invalid_payment_day',
  );
  // 0.06 / 12 = 0.005 → 0.01 each, last = 0.06 − 11 × 0.01 = −0.05: refused
  assert.equal(
    code(() => buildSchedule({ ...base, amount: money('0.06'), installmentsCount: 12 })),
    'amount_too_small',
  );
});

/**
 * Whether flat refuses these terms, judged on its own: the total spread as round2(t / n) with the
 * remainder on the last; refused when an installment would be under 0.01. (A part the even spread
 * would leave negative, 0.06 of interest over 12: 0.01 each and −0.05 on the last, is spread in
 * proportion to the installments' amounts instead.)
 */
const flatRefused = (r: { cents: number; rateBp: number; vatBp: number; n: number }) => {
  const amount = money(r.cents).div(100);
  const interest = round2(amount.times(money(r.rateBp).div(10_000)));
  const vat = round2(interest.times(money(r.vatBp).div(10_000)));
  const spread = (t: Dec) => {
    const each = round2(t.div(r.n));
    return [each, t.minus(each.times(r.n - 1))]; // any but the last, the last
  };
  const [a, i, v] = [spread(amount.plus(interest).plus(vat)), spread(interest), spread(vat)];
  void i;
  void v;
  // a part that the even spread would leave negative is spread in proportion to the amounts instead
  return [0, 1].some((k) => a[k]!.lte(0));
};

const scheduleInput = fc.record({
  cents: fc.integer({ min: 100, max: 1_000_000_000 }),
  rateBp: fc.integer({ min: 0, max: 30_000 }), // interest in 1/10000 (0 to 300 %)
  n: fc.integer({ min: 1, max: 12 }),
  days: fc.integer({ min: 0, max: 120 }),
  cutType: fc.constantFrom('fixed' as const, 'monthly' as const),
  paymentDay: fc.integer({ min: 1, max: 28 }),
  startDay: fc.integer({ min: 18_000, max: 25_000 }),
});

test('property: installments sum exactly to total; all but the last are round2(total/n); dates strictly increase', () => {
  fc.assert(
    fc.property(scheduleInput, (r) => {
      // a tiny interest (0.06 over 12) would leave a negative interest on the last: refused, below
      fc.pre(!flatRefused({ ...r, vatBp: 0 }));
      const s = buildSchedule({
        amount: money(r.cents).div(100),
        interestRate: money(r.rateBp).div(10_000),
        installmentsCount: r.n,
        daysUntilFirstPayment: r.days,
        cutType: r.cutType,
        paymentDay: r.paymentDay,
        startDate: fromDay(r.startDay),
      });
      assert.equal(s.installments.length, r.n);
      const sum = s.installments.reduce((a, i) => a.plus(i.amount), money(0));
      assert.equal(sum.toFixed(2), s.total.toFixed(2));
      assert.ok(s.total.eq(round2(s.total)), 'holds: s.total.eq(round2(s.total))');
      const each = round2(s.total.div(r.n));
      s.installments.slice(0, -1).forEach((i) => assert.ok(i.amount.eq(each), 'holds: i.amount.eq(each)'));
      s.installments.forEach((i, k) => assert.equal(i.number, k + 1));
      for (let k = 1; k < s.installments.length; k++)
        assert.equal(compareDates(s.installments[k - 1]!.dueDate, s.installments[k]!.dueDate), -1);
      if (r.cutType === 'monthly')
        s.installments.forEach((i) => assert.equal(Number(i.dueDate.slice(8)), r.paymentDay));
    }),
    { numRuns: 500 },
  );
});

// ---- parts, VAT and the french method (docs/domain.md "Interest methods, VAT and disclosed cost") ----

const parts = (s: ReturnType<typeof buildSchedule>) =>
  s.installments.map((i) => [i.principal, i.interest, i.vat, i.amount].map(toMoneyString));

test('flat without VAT: interest spread like the amount, principal the rest', () => {
  // 1000 at 10 % in 3: interest 100.00 → 33.33, 33.33, 33.34 (remainder); amounts 366.67, 366.67, 366.66
  // principal = amount − interest: 333.34, 333.34, 333.32 (sum 1000.00)
  const s = buildSchedule({ ...base, interestRate: money('0.1'), installmentsCount: 3 });
  assert.deepEqual(parts(s), [
    ['333.34', '33.33', '0.00', '366.67'],
    ['333.34', '33.33', '0.00', '366.67'],
    ['333.32', '33.34', '0.00', '366.66'],
  ]);
});

test('flat with 21 % VAT: VAT on the whole interest, spread the same way', () => {
  // 1000 at 10 % in 3: interest 100.00, VAT round2(100 × 0.21) = 21.00, total 1121.00
  // amounts: 1121 / 3 = 373.666… → 373.67, 373.67, last 1121 − 747.34 = 373.66
  // interest 33.33, 33.33, 33.34; VAT 7.00 each; principal 373.67 − 33.33 − 7 = 333.34, 333.34,
  // 373.66 − 33.34 − 7 = 333.32
  const s = buildSchedule({ ...base, interestRate: money('0.1'), installmentsCount: 3, vatRate: money('0.21') });
  assert.equal(toMoneyString(s.total), '1121.00');
  assert.deepEqual(parts(s), [
    ['333.34', '33.33', '7.00', '373.67'],
    ['333.34', '33.33', '7.00', '373.67'],
    ['333.32', '33.34', '7.00', '373.66'],
  ]);
  // 333.33 at 15 % with 21 %: interest round2(49.9995) = 50.00, VAT 10.50, total 393.83 in 1
  const one = buildSchedule({
    ...base,
    amount: money('333.33'),
    interestRate: money('0.15'),
    vatRate: money('0.21'),
  });
  assert.deepEqual(parts(one), [['333.33', '50.00', '10.50', '393.83']]);
});

test('french: 100,000 at 120 % TNA in 12 with 21 % VAT, to the cent', () => {
  // i = 1.20 / 12 = 0.10. A = 100000 × 0.1 / (1 − 1.1^−12) = 14676.3315100287… → 14676.33.
  // Each period: interest = round2(balance × 0.1), principal = A − interest, VAT = round2(interest × 0.21),
  // balance −= principal; the 12th takes principal = the balance left, 13342.18, and interest
  // round2(13342.18 × 0.1) = 1334.22. Computed once with python3's decimal (prec 50, ROUND_HALF_UP):
  //   A = r2(P*i/(1-(1+i)**-n)); bal = P
  //   for k in 1..12: it = r2(bal*i); p = A-it if k<12 else bal; v = r2(it*D('0.21')); bal -= p
  // giving (principal, interest, VAT, amount; balance after):
  //    1   4676.33  10000.00  2100.00  16776.33   95323.67
  //    2   5143.96   9532.37  2001.80  16678.13   90179.71
  //    3   5658.36   9017.97  1893.77  16570.10   84521.35
  //    4   6224.19   8452.14  1774.95  16451.28   78297.16
  //    5   6846.61   7829.72  1644.24  16320.57   71450.55
  //    6   7531.27   7145.06  1500.46  16176.79   63919.28
  //    7   8284.40   6391.93  1342.31  16018.64   55634.88
  //    8   9112.84   5563.49  1168.33  15844.66   46522.04
  //    9  10024.13   4652.20   976.96  15653.29   36497.91
  //   10  11026.54   3649.79   766.46  15442.79   25471.37
  //   11  12129.19   2547.14   534.90  15211.23   13342.18
  //   12  13342.18   1334.22   280.19  14956.59       0.00
  // total 192100.40 (principal 100000.00, interest 76116.03, VAT 15984.37)
  const s = buildSchedule({
    ...base,
    amount: money(100000),
    interestRate: money('1.2'),
    installmentsCount: 12,
    startDate: '2026-01-15',
    amortization: 'french',
    vatRate: money('0.21'),
  });
  assert.deepEqual(parts(s), [
    ['4676.33', '10000.00', '2100.00', '16776.33'],
    ['5143.96', '9532.37', '2001.80', '16678.13'],
    ['5658.36', '9017.97', '1893.77', '16570.10'],
    ['6224.19', '8452.14', '1774.95', '16451.28'],
    ['6846.61', '7829.72', '1644.24', '16320.57'],
    ['7531.27', '7145.06', '1500.46', '16176.79'],
    ['8284.40', '6391.93', '1342.31', '16018.64'],
    ['9112.84', '5563.49', '1168.33', '15844.66'],
    ['10024.13', '4652.20', '976.96', '15653.29'],
    ['11026.54', '3649.79', '766.46', '15442.79'],
    ['12129.19', '2547.14', '534.90', '15211.23'],
    ['13342.18', '1334.22', '280.19', '14956.59'],
  ]);
  assert.equal(toMoneyString(s.total), '192100.40');
  // A: principal + interest of the first eleven
  s.installments.slice(0, -1).forEach((i) => assert.equal(toMoneyString(i.principal.plus(i.interest)), '14676.33'));
  const sum = (f: (i: (typeof s.installments)[number]) => Dec) =>
    toMoneyString(s.installments.reduce((a, i) => a.plus(f(i)), money(0)));
  assert.equal(
    sum((i) => i.interest),
    '76116.03',
  );
  assert.equal(
    sum((i) => i.vat),
    '15984.37',
  );
  // due dates as for flat: 2026-01-15 + 30 = 2026-02-14, then the 14th of each month
  assert.equal(s.installments[0]!.dueDate, '2026-02-14');
  assert.equal(s.installments[11]!.dueDate, '2027-01-14');
});

test('french at 0 %: P / n, the last takes the remainder (as flat at 0 %)', () => {
  // 1000 / 3 = 333.33, 333.33, 333.34
  const s = buildSchedule({ ...base, installmentsCount: 3, amortization: 'french', vatRate: money('0.21') });
  assert.deepEqual(parts(s), [
    ['333.33', '0.00', '0.00', '333.33'],
    ['333.33', '0.00', '0.00', '333.33'],
    ['333.34', '0.00', '0.00', '333.34'],
  ]);
  assert.deepEqual(parts(s), parts(buildSchedule({ ...base, installmentsCount: 3 })));
});

test('scheduleFor reads amortization and vat_rate from the plan row, flat and 0 by default', () => {
  const plan = {
    interest_rate: '1.200000',
    installments_count: 12,
    days_until_first_payment: 30,
    cut_type: 'fixed' as const,
    payment_day: 10,
  };
  const flat = scheduleFor(plan, '100000.00', '2026-01-15');
  // flat 120 %: 220000 / 12 = 18333.33 each, last 18333.37
  assert.equal(toMoneyString(flat.total), '220000.00');
  assert.equal(toMoneyString(flat.installments[11]!.amount), '18333.37');
  assert.deepEqual(
    parts(scheduleFor({ ...plan, amortization: null, vat_rate: null }, 100000, '2026-01-15')),
    parts(flat),
  );
  const french = scheduleFor({ ...plan, amortization: 'french', vat_rate: '0.210000' }, 100000, '2026-01-15');
  assert.equal(toMoneyString(french.total), '192100.40');
  assert.equal(toMoneyString(french.installments[0]!.amount), '16776.33');
});

test('refuses a negative part, an unknown method, a negative VAT rate, an amount below the cent', () => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof DomainError, 'holds: e instanceof DomainError');
      return e.rule;
    }
    return null;
  };
  // 100 at 0.06 %: interest 0.06 over 12 → 0.01 each would leave 0.06 − 0.11 = −0.05 on the last:
  // spread in proportion to the amounts instead: through installment k, round2(0.06 × 8.34k / 100.06)
  // = 0.01, 0.01, 0.02, 0.02, … (0.0050009 rounds up), so 0.01 and 0.00 alternate
  const tiny = buildSchedule({ ...base, amount: money(100), interestRate: money('0.0006'), installmentsCount: 12 });
  assert.deepEqual(
    tiny.installments.map((i) => i.interest.toFixed(2)),
    ['0.01', '0.00', '0.01', '0.00', '0.01', '0.00', '0.01', '0.00', '0.01', '0.00', '0.01', '0.00'],
  );
  assert.ok(
    tiny.installments.every((i) => i.principal.gte(0)),
    'every i of tiny.installments: i.principal.gte(0)',
  );
  // 0.05 at 0 % french in 12: 0.05 / 12 → 0.00 each: refused
  assert.equal(
    code(() => buildSchedule({ ...base, amount: money('0.05'), installmentsCount: 12, amortization: 'french' })),
    'amount_too_small',
  );
  assert.equal(
    code(() => buildSchedule({ ...base, amortization: 'german' as 'flat' })),
    'unprocessable',
  );
  assert.equal(
    code(() => buildSchedule({ ...base, vatRate: money('-0.21') })),
    'unprocessable',
  );
  assert.equal(
    code(() => buildSchedule({ ...base, amount: money('100.001') })),
    'invalid_amount',
  );
});

const withParts = fc.record({
  // from 100.00: an installment of at least 4.16 whatever n, so only a tiny interest can be refused
  cents: fc.integer({ min: 10_000, max: 1_000_000_000 }),
  rateBp: fc.integer({ min: 0, max: 30_000 }),
  vatBp: fc.constantFrom(0, 1050, 2100, 2700),
  n: fc.integer({ min: 1, max: 24 }),
  amortization: fc.constantFrom('flat' as const, 'french' as const),
});
const build = (r: { cents: number; rateBp: number; vatBp: number; n: number; amortization: 'flat' | 'french' }) =>
  buildSchedule({
    ...base,
    amount: money(r.cents).div(100),
    interestRate: money(r.rateBp).div(10_000),
    installmentsCount: r.n,
    amortization: r.amortization,
    vatRate: money(r.vatBp).div(10_000),
  });

test('property: parts in cents, none negative, adding up to each amount; principals add up to the amount lent', () => {
  fc.assert(
    fc.property(withParts, (r) => {
      if (r.amortization === 'flat' && flatRefused(r)) {
        assert.throws(
          () => build(r),
          (e) => e instanceof DomainError && e.rule === 'amount_too_small',
        );
        return;
      }
      const s = build(r);
      let principal = money(0);
      let total = money(0);
      for (const i of s.installments) {
        for (const x of [i.principal, i.interest, i.vat]) {
          assert.ok(x.gte(0), `negative part in ${JSON.stringify(parts(s))}`);
          assert.ok(x.eq(round2(x)), 'holds: x.eq(round2(x))');
        }
        assert.ok(i.amount.gt(0), 'holds: i.amount.gt(0)');
        assert.ok(
          i.principal.plus(i.interest).plus(i.vat).eq(i.amount),
          'holds: i.principal.plus(i.interest).plus(i.vat).eq(i.amount)',
        );
        principal = principal.plus(i.principal);
        total = total.plus(i.amount);
      }
      assert.equal(principal.toFixed(2), money(r.cents).div(100).toFixed(2));
      assert.equal(total.toFixed(2), s.total.toFixed(2));
    }),
    { numRuns: 500 },
  );
});

test('property: flat with VAT 0 is the schedule as it was (total, amounts, due dates)', () => {
  fc.assert(
    fc.property(scheduleInput, (r) => {
      const input: ScheduleInput = {
        amount: money(r.cents).div(100),
        interestRate: money(r.rateBp).div(10_000),
        installmentsCount: r.n,
        daysUntilFirstPayment: r.days,
        cutType: r.cutType,
        paymentDay: r.paymentDay,
        startDate: fromDay(r.startDay),
      };
      // the formula before parts: total = round2(amount × (1 + rate)), round2(total / n) each, the
      // remainder on the last; dates from firstDueDate, k − 1 months after it
      const total = round2(input.amount.times(money(1).plus(input.interestRate)));
      const each = round2(total.div(r.n));
      const old = Array.from({ length: r.n }, (_, k) =>
        toMoneyString(k === r.n - 1 ? total.minus(each.times(r.n - 1)) : each),
      );
      const first = firstDueDate(input);
      const oldDates = Array.from({ length: r.n }, (_, k) => addMonthsClamped(first, k));
      const refused = flatRefused({ ...r, vatBp: 0 });
      for (const s of refused
        ? []
        : [buildSchedule(input), buildSchedule({ ...input, amortization: 'flat', vatRate: money(0) })]) {
        assert.equal(toMoneyString(s.total), toMoneyString(total));
        assert.deepEqual(amounts(s), old);
        assert.deepEqual(dates(s), oldDates);
      }
      if (refused) assert.throws(() => buildSchedule(input), DomainError);
    }),
    { numRuns: 500 },
  );
});

test('property: french installments before VAT are equal but for the last; interest is round2(balance × TNA / 12)', () => {
  fc.assert(
    fc.property(withParts, (r) => {
      const s = build({ ...r, amortization: 'french' });
      const i = money(r.rateBp).div(10_000).div(12);
      const A = s.installments[0]!.principal.plus(s.installments[0]!.interest);
      let balance = money(r.cents).div(100);
      s.installments.forEach((x, k) => {
        assert.ok(x.interest.eq(round2(balance.times(i))), 'holds: x.interest.eq(round2(balance.times(i)))');
        assert.ok(
          x.vat.eq(round2(x.interest.times(money(r.vatBp).div(10_000)))),
          'holds: x.vat.eq(round2(x.interest.times(money(r.vatBp).div(10_000))))',
        );
        if (k < s.installments.length - 1)
          assert.ok(x.principal.plus(x.interest).eq(A), 'holds: x.principal.plus(x.interest).eq(A)');
        balance = balance.minus(x.principal);
      });
      assert.ok(balance.isZero(), 'holds: balance.isZero()');
    }),
    { numRuns: 300 },
  );
});
