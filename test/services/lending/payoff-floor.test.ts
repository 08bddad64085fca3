// A payment skips the early-payoff quote when its amount is below payoffFloor
// (src/services/lending/engine/book.ts): the floor must never be above the quote, whatever the
// installments' parts, payments, punitory, waivers, charges and date, or a payment of exactly the
// payoff would lose its rebate. Random books against the quote itself (two computations).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { addDays, money } from '../../../src/domain/index.ts';
import { payoffFloor, payoffOfStates } from '../../../src/services/lending/engine/book.ts';
import { buildStates, type CreditTerms } from '../../../src/services/lending/engine/state.ts';

const cents = (max: number) => fc.integer({ min: 0, max }).map((c) => (c / 100).toFixed(2));
const signedCents = (max: number) => fc.integer({ min: -max, max }).map((c) => (c / 100).toFixed(2));

const installment = fc.record({
  principal: cents(500_000),
  interest: cents(100_000),
  vat: cents(30_000),
  insurance: cents(5_000),
  fees: cents(5_000),
  tolerance_days: fc.integer({ min: 0, max: 3 }),
});

const entry = (n: number) =>
  fc.record({
    installment: fc.integer({ min: 0, max: n - 1 }),
    type: fc.constantFrom('payment', 'punitory', 'charge', 'waiver'),
    amount: signedCents(200_000),
    part: cents(50_000),
    day: fc.integer({ min: 0, max: 400 }),
  });

const terms = fc.record({
  dailyRate: fc.constantFrom('0', '0.001', '0.005'),
  mode: fc.constantFrom('simple_outstanding', 'full_amount', 'compound'),
  graceDays: fc.integer({ min: 0, max: 5 }),
  maxDays: fc.constantFrom(0, 30, 90),
  capPct: fc.constantFrom('0', '50'),
  vatRate: fc.constantFrom('0', '0.21'),
  collection: fc.boolean(),
});

test('the payoff floor is never above the quote (a payment below it cannot be the payoff)', () => {
  fc.assert(
    fc.property(
      fc
        .array(installment, { minLength: 1, maxLength: 12 })
        .chain((insts) =>
          fc.tuple(
            fc.constant(insts),
            fc.array(entry(insts.length), { maxLength: 30 }),
            terms,
            fc.integer({ min: 0, max: 420 }),
          ),
        ),
      ([insts, entries, t, asOfDay]) => {
        const start = '2024-01-01';
        const installments = insts.map((i, k) => {
          const amount = money(i.principal).plus(i.interest).plus(i.vat).plus(i.insurance).plus(i.fees);
          return {
            id: `i${k}`,
            number: k + 1,
            due_date: addDays(start, 30 * (k + 1)),
            amount: amount.toFixed(2),
            interest: i.interest,
            // the installment's VAT holds its insurance's and fees' (none here)
            vat: i.vat,
            insurance: i.insurance,
            fees: i.fees,
            tolerance_days: i.tolerance_days,
          };
        });
        const ledger = entries.map((e, k) => ({
          installment_id: `i${e.installment}`,
          type: e.type as 'payment' | 'punitory' | 'charge' | 'waiver',
          amount: e.amount,
          punitory_part: e.type === 'payment' || e.type === 'waiver' ? e.part : '0.00',
          charge_part: '0.00',
          vat_part: '0.00',
          interest_part: e.type === 'payment' ? e.part : '0.00',
          effective_date: addDays(start, e.day),
          created_at: new Date(k),
        }));
        const creditTerms: CreditTerms = {
          dailyRate: money(t.dailyRate),
          mode: t.mode as CreditTerms['mode'],
          graceDays: t.graceDays,
          maxDays: t.maxDays,
          capPct: money(t.capPct),
          vatRate: money(t.vatRate),
          collection: t.collection ? { amount: money(100), vat: money(21), total: money(121), afterDays: 10 } : null,
        };
        const asOf = addDays(start, asOfDay);
        const states = buildStates(installments, ledger);
        const floor = payoffFloor(states, asOf);
        const quote = payoffOfStates({ start_date: start }, states, creditTerms, null, asOf);
        assert.ok(
          floor.lte(quote.amount),
          `floor ${floor.toFixed(2)} above the quote ${quote.amount.toFixed(2)} as of ${asOf}`,
        );
      },
    ),
    { numRuns: 2000 },
  );
});
