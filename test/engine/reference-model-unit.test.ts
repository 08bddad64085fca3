// The reference model checked on its own: cases computed by hand (one per punitory mode, grace,
// the limits, a backdated payment), then against the closed form of src/domain/punitory.ts on
// random credits and payments (two independent computations of one rule).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { addDays, cumulativePunitory, money, type PunitoryTerms } from '../../src/domain/index.ts';
import { ReferenceModel, type CreditView, type ModelCredit, type ModelPayment } from './reference-model.ts';

const terms = (t: Partial<PunitoryTerms> = {}): PunitoryTerms => ({
  dailyRate: money('0.005'),
  mode: 'simple_outstanding',
  graceDays: 0,
  maxDays: 0,
  capPct: money(0),
  ...t,
});
const oneInstallment = (
  id: string,
  amount: string,
  dueDate: string,
  t: Partial<PunitoryTerms>,
  writtenOffOn: string | null = null,
): ModelCredit => ({
  id,
  startDate: '2023-12-01',
  installments: [{ number: 1, amount, dueDate }],
  terms: terms(t),
  writtenOffOn,
});
const paid = (creditId: string, paidOn: string, amount: string, recordedOn = paidOn): ModelPayment => ({
  creditId,
  paidOn,
  recordedOn,
  amount,
});

/** The figures worth comparing, as strings. */
function figures(v: CreditView) {
  return {
    status: v.status,
    outstanding: v.outstanding.toFixed(2),
    overdue: v.overdue.toFixed(2),
    daysLate: v.daysLate,
    installments: v.installments.map((i) => ({
      punitory: i.punitory.toFixed(2),
      paid: i.paid.toFixed(2),
      outstanding: i.outstanding.toFixed(2),
      status: i.status,
      daysLate: i.daysLate,
    })),
  };
}
const inst = (punitory: string, paid: string, outstanding: string, status: string, daysLate: number) => ({
  punitory,
  paid,
  outstanding,
  status,
  daysLate,
});

test('simple_outstanding: oldest installment first, its punitory before its amount; the rest lowers the next one', () => {
  const credit: ModelCredit = {
    id: 'a',
    startDate: '2024-01-01',
    installments: [
      { number: 1, amount: '1000.00', dueDate: '2024-02-01' },
      { number: 2, amount: '1000.00', dueDate: '2024-03-01' },
    ],
    terms: terms(),
  };
  const m = new ReferenceModel([credit], [paid('a', '2024-02-05', '1500.00')], '2024-03-31');
  // due today is not late
  assert.deepEqual(
    figures(m.creditOn('a', '2024-02-01')!).installments[0],
    inst('0.00', '0.00', '1000.00', 'pending', 0),
  );
  // 3 days late: 3 × 0.005 × 1000 = 15.00
  assert.deepEqual(figures(m.creditOn('a', '2024-02-04')!), {
    status: 'active',
    outstanding: '2015.00',
    overdue: '1015.00',
    daysLate: 3,
    installments: [inst('15.00', '0.00', '1015.00', 'pending', 3), inst('0.00', '0.00', '1000.00', 'pending', 0)],
  });
  // paid on day 4: 20.00 of punitory + 1000.00 on #1, the other 480.00 on #2 (not yet due).
  // On 2024-03-11 #2 is 10 days late on 520.00: 10 × 2.60 = 26.00
  assert.deepEqual(figures(m.creditOn('a', '2024-03-11')!), {
    status: 'active',
    outstanding: '546.00',
    overdue: '546.00',
    daysLate: 10,
    installments: [inst('20.00', '1020.00', '0.00', 'paid', 4), inst('26.00', '480.00', '546.00', 'partial', 10)],
  });
});

test('full_amount with grace: nothing within it, every day once it is exceeded; paid in full within grace owes nothing', () => {
  const late = oneInstallment('late', '200.00', '2024-01-10', {
    mode: 'full_amount',
    dailyRate: money('0.01'),
    graceDays: 3,
  });
  const onTime = oneInstallment('onTime', '200.00', '2024-01-10', {
    mode: 'full_amount',
    dailyRate: money('0.01'),
    graceDays: 3,
  });
  const m = new ReferenceModel(
    [late, onTime],
    [
      paid('late', '2024-01-14', '100.00'),
      paid('onTime', '2024-01-13', '200.00'),
      paid('onTime', '2024-01-15', '10.00'),
    ],
    '2024-02-29',
  );
  assert.equal(figures(m.creditOn('late', '2024-01-13')!).installments[0]!.punitory, '0.00');
  // day 4 > 3 days of grace: all 4 days count, 4 × 0.01 × 200 = 8.00; 100.00 paid: 8.00 + 92.00.
  // Day 10: full_amount ignores the partial payment: 10 × 2 = 20.00; 200 + 20 − 100 = 120.00
  assert.deepEqual(
    figures(m.creditOn('late', '2024-01-20')!).installments[0],
    inst('20.00', '100.00', '120.00', 'partial', 10),
  );
  assert.equal(m.creditOn('late', '2024-01-20')!.installments[0]!.slices[0]!.punitory.toFixed(2), '8.00');
  // paid 3 days late, within grace: nothing owed, the credit closes; a later payment is refused
  assert.deepEqual(figures(m.creditOn('onTime', '2024-02-29')!), {
    status: 'closed',
    outstanding: '0.00',
    overdue: '0.00',
    daysLate: 0,
    installments: [inst('0.00', '200.00', '0.00', 'paid', 3)],
  });
  assert.deepEqual(m.verdicts, [{ accepted: true }, { accepted: true }, { accepted: false, reason: 'closed' }]);
});

test('compound: the base is the amount unpaid plus punitory accrued minus punitory paid; the limits', () => {
  const compound = oneInstallment('c', '1000.00', '2024-01-01', { mode: 'compound', dailyRate: money('0.01') });
  const capped = oneInstallment('cap', '1000.00', '2024-01-01', { capPct: money(50) });
  const maxDays = oneInstallment('max', '1000.00', '2024-01-01', { maxDays: 7 });
  const writtenOff = oneInstallment('wo', '1000.00', '2024-01-01', {}, '2024-01-04');
  const m = new ReferenceModel(
    [compound, capped, maxDays, writtenOff],
    [paid('c', '2024-01-03', '20.10')],
    '2024-07-31',
  );
  // day 1 on 1000 → 10.00, day 2 on 1010 → 10.10: 20.10 owed and paid on day 2; day 3 on 1000
  // → 10.00, day 4 on 1010 → 10.10: 40.20
  assert.deepEqual(
    figures(m.creditOn('c', '2024-01-05')!).installments[0],
    inst('40.20', '20.10', '1020.10', 'partial', 4),
  );
  // day 10: 20.10 + 1000 × (1.01^8 − 1) = 20.10 + 82.8567… = 102.9567… → 102.96
  assert.equal(m.creditOn('c', '2024-01-11')!.installments[0]!.punitory.toFixed(2), '102.96');
  // 200 days × 5.00 = 1000.00, capped at 50 % of 1000
  assert.equal(m.creditOn('cap', '2024-07-19')!.installments[0]!.punitory.toFixed(2), '500.00');
  assert.equal(m.creditOn('max', '2024-01-31')!.installments[0]!.punitory.toFixed(2), '35.00');
  // written off on day 3: that day is chargeable, no later one
  assert.equal(m.creditOn('wo', '2024-01-31')!.installments[0]!.punitory.toFixed(2), '15.00');
  assert.equal(m.creditOn('wo', '2024-01-03')!.status, 'active');
  assert.equal(m.creditOn('wo', '2024-01-04')!.status, 'written_off');
});

test('backdated: recorded on the 20th, dated the 15th; allocated against what was owed on its date, from the day it is recorded', () => {
  const credit = oneInstallment('b', '1000.00', '2024-01-10', {});
  const m = new ReferenceModel(
    [credit],
    [
      paid('b', '2024-01-15', '1000.00', '2024-01-20'),
      paid('b', '2024-01-20', '100.00'), // more than the 25.63 owed
      paid('b', '2024-01-14', '1.00', '2024-01-21'), // before the latest payment
    ],
    '2024-01-31',
  );
  // the 19th does not know the payment: 9 days on 1000 = 45.00
  assert.deepEqual(
    figures(m.creditOn('b', '2024-01-19')!).installments[0],
    inst('45.00', '0.00', '1045.00', 'pending', 9),
  );
  // the 20th: on the 15th it owed 25.00 of punitory → 25.00 + 975.00; 25.00 unpaid from day 6:
  // days 6..10 × 0.125 = 0.625 → 25.625 → 25.63 (half away from zero)
  assert.deepEqual(
    figures(m.creditOn('b', '2024-01-20')!).installments[0],
    inst('25.63', '1000.00', '25.63', 'partial', 10),
  );
  // day 15: 25 + 10 × 0.125 = 26.25
  assert.equal(m.creditOn('b', '2024-01-25')!.installments[0]!.outstanding.toFixed(2), '26.25');
  assert.equal(m.creditOn('b', '2024-01-19')!.installments[0]!.punitory.toFixed(2), '45.00');
  assert.deepEqual(m.verdicts, [
    { accepted: true },
    { accepted: false, reason: 'exceeds_outstanding' },
    { accepted: false, reason: 'before_last_payment' },
  ]);
});

// ---- the model against the closed form ----

const arbCase = fc
  .record({
    amounts: fc.array(fc.integer({ min: 100, max: 2_000_000 }), { minLength: 1, maxLength: 3 }),
    firstDue: fc.integer({ min: 0, max: 20 }),
    rateMicros: fc.oneof(fc.constantFrom(1_000, 5_000, 50_000), fc.integer({ min: 0, max: 50_000 })),
    mode: fc.constantFrom('simple_outstanding' as const, 'compound' as const, 'full_amount' as const),
    graceDays: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10 })),
    maxDays: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 60 })),
    capPct: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 150 })),
    writeOff: fc.option(fc.integer({ min: 10, max: 90 }), { nil: null }),
    pays: fc.array(
      fc.record({
        gap: fc.integer({ min: 0, max: 15 }),
        lag: fc.integer({ min: 0, max: 6 }),
        cents: fc.integer({ min: 1, max: 1_500_000 }),
      }),
      {
        maxLength: 6,
      },
    ),
  })
  .map((r) => {
    const start = '2024-01-01';
    const credit: ModelCredit = {
      id: 'x',
      startDate: start,
      installments: r.amounts.map((cents, n) => ({
        number: n + 1,
        amount: money(cents).div(100),
        dueDate: addDays(start, r.firstDue + 30 * n),
      })),
      terms: terms({
        dailyRate: money(r.rateMicros).div(1_000_000),
        mode: r.mode,
        graceDays: r.graceDays,
        maxDays: r.maxDays,
        capPct: money(r.capPct),
      }),
      writtenOffOn: r.writeOff === null ? null : addDays(start, r.writeOff),
    };
    let day = 0;
    const payments = r.pays.map((p) => {
      day += p.gap;
      return paid('x', addDays(start, day), money(p.cents).div(100).toFixed(2), addDays(start, day + p.lag));
    });
    return { credit, payments };
  });

test('property: every day, each installment’s punitory equals cumulativePunitory of its payment slices', () => {
  const until = '2024-05-31';
  fc.assert(
    fc.property(arbCase, ({ credit, payments }) => {
      const m = new ReferenceModel([credit], payments, until);
      for (let k = 0; addDays('2024-01-01', k) <= until; k += 3) {
        const day = addDays('2024-01-01', k);
        for (const i of m.creditOn('x', day)!.installments) {
          const closed = cumulativePunitory(
            {
              amount: i.amount,
              dueDate: i.dueDate,
              payments: [...i.slices],
              asOf: day,
              stopDate: credit.writtenOffOn ?? null,
            },
            credit.terms,
          );
          assert.equal(i.punitory.toFixed(2), closed.toFixed(2), `${day} #${i.number}`);
        }
      }
    }),
    { numRuns: 40 },
  );
});
