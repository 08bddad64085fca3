// The reference model checked on its own: cases computed by hand (one per punitory mode, grace,
// the limits, backdated payments placed in date order, a reversal, the weekend tolerance, VAT),
// then against the closed form of src/domain/punitory.ts on random credits, payments and
// reversals (two independent computations of one rule).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  addDays,
  collectionChargeOwed,
  cumulativePunitory,
  money,
  round2,
  type PunitoryTerms,
} from '../../../src/domain/index.ts';
import {
  ReferenceModel,
  weekendTolerance,
  type CreditView,
  type ModelCredit,
  type ModelEvent,
  type ModelPayment,
} from './reference-model.ts';

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
      paid('b', '2024-01-14', '1.00', '2024-01-21'), // before the latest payment: placed in date order
      paid('b', '2024-01-12', '1000.00', '2024-01-22'), // with the later payments, more than owed
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
  assert.equal(m.creditOn('b', '2024-01-20')!.installments[0]!.slices[0]!.punitory.toFixed(2), '25.00');
  // the 21st knows the 1.00 of the 14th: it paid 1.00 of the 20.00 of punitory owed then, so the
  // 1000.00 of the 15th paid 24.00 + 976.00; 24.00 unpaid from day 6: days 6..11 × 0.12 = 0.72
  assert.deepEqual(
    figures(m.creditOn('b', '2024-01-21')!).installments[0],
    inst('25.72', '1001.00', '24.72', 'partial', 11),
  );
  assert.deepEqual(
    m
      .creditOn('b', '2024-01-21')!
      .installments[0]!.slices.map((x) => [x.paidOn, x.principal.toFixed(2), x.punitory.toFixed(2)]),
    [
      ['2024-01-14', '0.00', '1.00'],
      ['2024-01-15', '976.00', '24.00'],
    ],
  );
  assert.equal(m.creditOn('b', '2024-01-20')!.installments[0]!.punitory.toFixed(2), '25.63');
  assert.deepEqual(m.verdicts, [
    { accepted: true },
    { accepted: false, reason: 'exceeds_outstanding' },
    { accepted: true },
    { accepted: false, reason: 'exceeds_outstanding' },
  ]);
});

test('reversal: from the day it is recorded the credit is walked without the payment; once only; a closed credit reopens', () => {
  const credit = oneInstallment('r', '1000.00', '2024-01-10', {});
  const events: ModelEvent[] = [
    paid('r', '2024-01-10', '500.00'), // 0: on its due date
    paid('r', '2024-01-20', '500.00'), // 1: 10 days late on 500: 25.00 punitory + 475.00
    { kind: 'reverse', creditId: 'r', recordedOn: '2024-01-25', payment: 0 },
    { kind: 'reverse', creditId: 'r', recordedOn: '2024-01-26', payment: 0 }, // again
    paid('r', '2024-01-26', '5000.00'), // 4: refused
    { kind: 'reverse', creditId: 'r', recordedOn: '2024-01-27', payment: 4 }, // not a payment
  ];
  const m = new ReferenceModel([credit], events, '2024-01-31');
  // the 24th: 25.00, then the 25.00 left unpaid from day 11: 4 × 0.125 = 0.50
  assert.deepEqual(
    figures(m.creditOn('r', '2024-01-24')!).installments[0],
    inst('25.50', '1000.00', '25.50', 'partial', 14),
  );
  // the 25th: without the 500.00 of the 10th, the 20th owed 10 × 5.00 = 50.00: 50.00 + 450.00,
  // then 550.00 unpaid from day 11: 5 × 2.75 = 13.75
  assert.deepEqual(
    figures(m.creditOn('r', '2024-01-25')!).installments[0],
    inst('63.75', '500.00', '563.75', 'partial', 15),
  );
  assert.deepEqual(
    m.creditOn('r', '2024-01-25')!.payments.map((p) => p.paidOn),
    ['2024-01-20'],
  );
  assert.deepEqual(m.verdicts, [
    { accepted: true },
    { accepted: true },
    { accepted: true },
    { accepted: false, reason: 'already_reversed' },
    { accepted: false, reason: 'exceeds_outstanding' },
    { accepted: false, reason: 'not_a_payment' },
  ]);

  // paid in full, closed; reversed, active again and owing from its due date
  const closed = new ReferenceModel(
    [oneInstallment('c', '1000.00', '2024-01-10', {})],
    [paid('c', '2024-01-08', '1000.00'), { kind: 'reverse', creditId: 'c', recordedOn: '2024-01-12', payment: 0 }],
    '2024-01-31',
  );
  assert.equal(closed.creditOn('c', '2024-01-11')!.status, 'closed');
  assert.deepEqual(figures(closed.creditOn('c', '2024-01-12')!), {
    status: 'active',
    outstanding: '1010.00',
    overdue: '1010.00',
    daysLate: 2,
    installments: [inst('10.00', '0.00', '1010.00', 'pending', 2)],
  });
});

test('business days: due on a Saturday or a Sunday, not late while paid in full by the next Monday', () => {
  assert.deepEqual(['2024-01-12', '2024-01-13', '2024-01-14', '2024-01-15'].map(weekendTolerance), [0, 2, 1, 0]);
  const sat = (id: string, graceDays = 0) => oneInstallment(id, '1000.00', '2024-01-13', { graceDays });
  const m = new ReferenceModel(
    [sat('mon'), sat('tue'), oneInstallment('sun', '1000.00', '2024-01-14', {}), sat('open'), sat('grace', 3)],
    [
      paid('mon', '2024-01-15', '1000.00'),
      paid('tue', '2024-01-16', '1015.00'),
      paid('sun', '2024-01-15', '1000.00'),
      paid('grace', '2024-01-16', '1000.00'),
    ],
    '2024-01-31',
  );
  // paid on Monday: 2 days after the Saturday, nothing owed
  assert.equal(m.creditOn('mon', '2024-01-31')!.status, 'closed');
  assert.equal(m.creditOn('sun', '2024-01-31')!.status, 'closed');
  // paid on Tuesday: late, every day counts (3 × 5.00)
  assert.deepEqual(
    figures(m.creditOn('tue', '2024-01-31')!).installments[0],
    inst('15.00', '1015.00', '0.00', 'paid', 3),
  );
  // unpaid: on Monday it owes nothing yet (but is overdue); on Tuesday all 3 days
  assert.deepEqual(
    figures(m.creditOn('open', '2024-01-15')!).installments[0],
    inst('0.00', '0.00', '1000.00', 'pending', 2),
  );
  assert.deepEqual(
    figures(m.creditOn('open', '2024-01-16')!).installments[0],
    inst('15.00', '0.00', '1015.00', 'pending', 3),
  );
  // grace_days larger than the tolerance: grace_days
  assert.equal(m.creditOn('grace', '2024-01-31')!.status, 'closed');
});

test('VAT on punitory: the net figure (rounded, graced, capped) with its VAT; compound grows on the punitory unpaid before VAT', () => {
  const withVat = (id: string, t: Partial<PunitoryTerms>): ModelCredit => ({
    ...oneInstallment(id, '1000.00', '2024-01-10', t),
    vatRate: '0.21',
  });
  const m = new ReferenceModel(
    [
      withVat('v', {}),
      withVat('cap', { capPct: money(3) }),
      withVat('c', { mode: 'compound', dailyRate: money('0.01') }),
    ],
    [paid('c', '2024-01-11', '12.10')],
    '2024-01-31',
  );
  // 10 days × 5.00 = 50.00 net, 60.50 with VAT
  assert.equal(m.creditOn('v', '2024-01-20')!.installments[0]!.punitory.toFixed(2), '60.50');
  // capped at 3 % of 1000 = 30.00 net, 36.30 with VAT
  assert.equal(m.creditOn('cap', '2024-01-31')!.installments[0]!.punitory.toFixed(2), '36.30');
  // compound 1 %: day 1 adds 10.00 (12.10 with VAT), all paid on day 1; day 2 on 1000 + 10 − 10
  // adds 10.00 (24.20); day 3 on 1000 + 20 − 10 adds 10.10: 30.10 net, 36.42 with VAT
  assert.deepEqual(
    [12, 13].map((d) => m.creditOn('c', `2024-01-${d}`)!.installments[0]!.punitory.toFixed(2)),
    ['24.20', '36.42'],
  );
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
    vatRate: fc.constantFrom('0', '0.21'),
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
    // reversals: of the payment at this index (mod the count), this many days after it is recorded
    reversals: fc.array(fc.record({ pick: fc.nat(), after: fc.integer({ min: 0, max: 20 }) }), { maxLength: 2 }),
    // a collection charge (its total in cents, VAT included) once an installment is this many days late
    collection: fc.option(
      fc.record({ cents: fc.integer({ min: 1, max: 50_000 }), afterDays: fc.integer({ min: 1, max: 40 }) }),
      {
        nil: null,
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
      vatRate: r.vatRate,
      writtenOffOn: r.writeOff === null ? null : addDays(start, r.writeOff),
      collection:
        r.collection === null ? null : { total: money(r.collection.cents).div(100), afterDays: r.collection.afterDays },
    };
    let day = 0;
    const payments: ModelEvent[] = r.pays.map((p) => {
      day += p.gap;
      return paid('x', addDays(start, day), money(p.cents).div(100).toFixed(2), addDays(start, day + p.lag));
    });
    const events = [...payments];
    if (payments.length > 0)
      for (const v of r.reversals) {
        const payment = v.pick % payments.length;
        events.push({
          kind: 'reverse',
          creditId: 'x',
          recordedOn: addDays(payments[payment]!.recordedOn, v.after),
          payment,
        });
      }
    return { credit, payments: events };
  });

test('property: every day, each installment’s punitory equals cumulativePunitory of its payment slices (its grace the larger of grace_days and the weekend tolerance, VAT on the net figure)', () => {
  const until = '2024-05-31';
  fc.assert(
    fc.property(arbCase, ({ credit, payments }) => {
      const m = new ReferenceModel([credit], payments, until);
      const vat = money(credit.vatRate ?? 0);
      for (let k = 0; addDays('2024-01-01', k) <= until; k += 3) {
        const day = addDays('2024-01-01', k);
        for (const i of m.creditOn('x', day)!.installments) {
          const net = cumulativePunitory(
            {
              amount: i.amount,
              dueDate: i.dueDate,
              // what is paid of punitory, before its VAT (the base of compound)
              payments: i.slices.map((x) => ({ ...x, punitory: x.punitory.div(vat.plus(1)) })),
              asOf: day,
              stopDate: credit.writtenOffOn ?? null,
            },
            { ...credit.terms, graceDays: Math.max(credit.terms.graceDays, weekendTolerance(i.dueDate)) },
          );
          const closed = vat.isZero() ? net : round2(net.times(vat.plus(1)));
          assert.equal(i.punitory.toFixed(2), closed.toFixed(2), `${day} #${i.number}`);
        }
      }
    }),
    { numRuns: 60 },
  );
});

test('property: every day, each installment’s collection charge is collectionChargeOwed of its payment slices (charged when the payments before its charge day left its amount unpaid)', () => {
  const until = '2024-05-31';
  let charged = 0;
  let spared = 0;
  fc.assert(
    fc.property(arbCase, ({ credit, payments }) => {
      const m = new ReferenceModel([credit], payments, until);
      const c = credit.collection;
      const charge = c
        ? { amount: money(c.total), vat: money(0), total: money(c.total), afterDays: c.afterDays }
        : null;
      for (let k = 0; addDays('2024-01-01', k) <= until; k += 2) {
        const day = addDays('2024-01-01', k);
        for (const i of m.creditOn('x', day)!.installments) {
          const owed = collectionChargeOwed(
            { amount: i.amount, dueDate: i.dueDate, payments: i.slices },
            charge,
            day,
            credit.writtenOffOn ?? null,
          );
          assert.equal(i.charges.toFixed(2), owed.toFixed(2), `${day} #${i.number}`);
          assert.ok(i.chargesPaid.lte(i.charges), `${day} #${i.number}: more of the charge paid than charged`);
          // the installments past their charge day: some charged, some spared (paid in time)
          if (c && addDays(i.dueDate, c.afterDays) <= day) {
            if (owed.gt(0)) charged++;
            else spared++;
          }
        }
      }
    }),
    { numRuns: 60 },
  );
  assert.ok(
    charged > 0 && spared > 0,
    `the cases no longer charge some installments and spare others (${charged}, ${spared})`,
  );
});

test('collection charge: charged on the day the installment is after_days late, before that day’s payments, paid first; recomputed when a backdated payment shows it was paid in time', () => {
  // 1000 due 01-31, 0.5 % a day (5.00), a charge of 121 once 5 days late: on 02-05
  const charged = (id: string): ModelCredit => ({
    ...oneInstallment(id, '1000', '2024-01-31', {}),
    collection: { total: '121', afterDays: 5 },
  });
  const m = new ReferenceModel(
    [charged('a'), charged('b'), charged('c')],
    [
      // a: 200 on the charge day: 121 of the charge, 25 of punitory (5 days), 54 of the amount
      paid('a', '2024-02-05', '200'),
      // b: paid in full the day before (4 days: 20 of punitory)
      paid('b', '2024-02-04', '1020'),
      // c: the same payment, recorded on 02-10
      paid('c', '2024-02-04', '1020', '2024-02-10'),
    ],
    '2024-02-29',
  );
  const one = (id: string, day: string) => m.creditOn(id, day)!.installments[0]!;
  assert.equal(one('a', '2024-02-04').charges.toFixed(2), '0.00');
  const a = one('a', '2024-02-05');
  assert.deepEqual(
    [a.charges, a.chargesPaid, a.punitoryPaid, a.principalPaid, a.outstanding].map((x) => x.toFixed(2)),
    ['121.00', '121.00', '25.00', '54.00', '946.00'],
  );
  assert.deepEqual([one('b', '2024-02-29').charges.toFixed(2), one('b', '2024-02-29').status], ['0.00', 'paid']);
  // c: from 02-05 to 02-09 the model knows no payment: 1000 + 121 + punitory; from 02-10, none
  assert.equal(one('c', '2024-02-09').charges.toFixed(2), '121.00');
  assert.equal(one('c', '2024-02-09').outstanding.toFixed(2), (1000 + 121 + 45).toFixed(2));
  assert.deepEqual([one('c', '2024-02-10').charges.toFixed(2), one('c', '2024-02-10').status], ['0.00', 'paid']);
});

test('the model payoff counts what was prepaid toward later installments in full', () => {
  // 3000 at 30 % flat from 2026-11-16: 1300 (principal 1000, interest 300) due 12-16, 01-16, 02-16;
  // 2600 paid on 11-17. On 11-26: #1 1000 + 300 × 10 / 30 − 1300 = −200; #2 1000 − 1300 = −300;
  // #3 1000: 500 (3000 + 100 accrued − 2600)
  const c: ModelCredit = {
    id: 'p',
    startDate: '2026-11-16',
    installments: ['2026-12-16', '2027-01-16', '2027-02-16'].map((dueDate, k) => ({
      number: k + 1,
      amount: '1300',
      dueDate,
      interest: '300',
    })),
    terms: terms({ dailyRate: money(0) }),
  };
  const m = new ReferenceModel([c], [paid('p', '2026-11-17', '2600')], '2026-11-30');
  assert.equal(m.payoffOn('p', '2026-11-26').toFixed(2), '500.00');
  // the day of the prepayment: one day of #1's period elapsed, 300 × 1 / 30 = 10: 3000 + 10 − 2600
  assert.equal(m.payoffOn('p', '2026-11-17').toFixed(2), '410.00');
  assert.equal(m.payoffOn('p', '2026-11-16').toFixed(2), '3000.00');
  assert.equal(m.refundableOn('p', '2026-11-26').toFixed(2), '0.00');
  // 3,800 paid on 11-17: on 11-26 3,000 + 100 settles it, 700 paid beyond; on 11-17, 3,010 and 790
  const beyond = new ReferenceModel([c], [paid('p', '2026-11-17', '3800')], '2026-11-30');
  assert.equal(beyond.payoffOn('p', '2026-11-26').toFixed(2), '0.00');
  assert.equal(beyond.refundableOn('p', '2026-11-26').toFixed(2), '700.00');
  assert.equal(beyond.refundableOn('p', '2026-11-17').toFixed(2), '790.00');
});
