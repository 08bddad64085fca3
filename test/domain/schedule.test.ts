import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  buildSchedule,
  money,
  round2,
  toMoneyString,
  compareDates,
  DomainError,
  fromDay,
} from '../../src/domain/index.ts';
import type { ScheduleInput } from '../../src/domain/index.ts';

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
      assert.ok(e instanceof DomainError);
      return e.code;
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
      assert.ok(s.total.eq(round2(s.total)));
      const each = round2(s.total.div(r.n));
      s.installments.slice(0, -1).forEach((i) => assert.ok(i.amount.eq(each)));
      s.installments.forEach((i, k) => assert.equal(i.number, k + 1));
      for (let k = 1; k < s.installments.length; k++)
        assert.equal(compareDates(s.installments[k - 1]!.dueDate, s.installments[k]!.dueDate), -1);
      if (r.cutType === 'monthly')
        s.installments.forEach((i) => assert.equal(Number(i.dueDate.slice(8)), r.paymentDay));
    }),
    { numRuns: 500 },
  );
});
