// The SQL function punitory_cumulative (migration 004) against the TypeScript cumulativePunitory:
// the same figure to the cent on random terms, payment histories and dates, on the test database
// of this process (PGlite or PostgreSQL, test/helpers/db.ts).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import { sharedTestDb } from '../helpers/db.ts';
import { addDays, cumulativePunitory, money, round2 } from '../../src/domain/index.ts';
import type { InstallmentPayment, PunitoryInput, PunitoryTerms } from '../../src/domain/index.ts';

before(() => sharedTestDb()); // opening and migrating is not the function's time

const arrayLiteral = (xs: string[]) => `{${xs.join(',')}}`;

/** punitory_cumulative of each case, in one statement (a round trip per case would cost more than the function). */
async function inSql(cases: [PunitoryInput, PunitoryTerms][]): Promise<string[]> {
  const db = await sharedTestDb();
  const calls = cases.map(([input, t], n) => {
    const p = input.payments;
    return sql`(${n}::integer, punitory_cumulative(
      ${input.amount.toFixed()}::numeric, ${input.dueDate}::date, ${input.asOf}::date, ${input.stopDate ?? null}::date,
      ${t.dailyRate.toFixed()}::numeric, ${t.mode}::text, ${t.graceDays}::integer, ${t.maxDays}::integer, ${t.capPct.toFixed()}::numeric,
      ${arrayLiteral(p.map((x) => x.paidOn))}::date[],
      ${arrayLiteral(p.map((x) => x.principal.toFixed()))}::numeric[],
      ${arrayLiteral(p.map((x) => x.punitory.toFixed()))}::numeric[]))`;
  });
  const { rows } = await sql<{
    r: string;
  }>`SELECT r::text FROM (VALUES ${sql.join(calls)}) AS v (n, r) ORDER BY n`.execute(db.kysely);
  return rows.map((x) => money(x.r).toFixed(2));
}

const inTs = (input: PunitoryInput, t: PunitoryTerms) => cumulativePunitory(input, t).toFixed(2);

// rates and the cap as stored: numeric(12, 6)
const micros = (n: number) => money(n).div(1_000_000);

const arbTerms: fc.Arbitrary<PunitoryTerms> = fc.record({
  dailyRate: fc
    .oneof(fc.constantFrom(0, 1_000, 5_000, 10_000, 50_000), fc.integer({ min: 0, max: 50_000 }))
    .map(micros),
  mode: fc.constantFrom('simple_outstanding' as const, 'compound' as const, 'full_amount' as const),
  graceDays: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10 })),
  maxDays: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 90 })),
  capPct: fc
    .oneof(fc.constant(0), fc.constantFrom(10_000_000, 50_000_000), fc.integer({ min: 1, max: 200_000_000 }))
    .map(micros),
});

// Day offsets from the due date from a small range, so that several payments fall on one day and
// some on or before the due date; a payment takes a share of what is left (100: pays it off).
const arbInput: fc.Arbitrary<PunitoryInput> = fc
  .record({
    cents: fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 100_000_000 })),
    dueOffset: fc.integer({ min: 0, max: 800 }),
    pays: fc.array(
      fc.record({
        k: fc.oneof(fc.integer({ min: -5, max: 30 }), fc.integer({ min: -10, max: 150 })),
        share: fc.oneof(fc.constant(100), fc.integer({ min: 0, max: 100 })),
        punCents: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50_000 })),
      }),
      { maxLength: 7 },
    ),
    asOfK: fc.integer({ min: -5, max: 200 }),
    stopK: fc.option(fc.integer({ min: -5, max: 150 }), { nil: null }),
  })
  .map((r) => {
    const amount = money(r.cents).div(100);
    const dueDate = addDays('2023-01-01', r.dueOffset);
    let left = amount;
    const payments: InstallmentPayment[] = [...r.pays]
      .sort((a, b) => a.k - b.k)
      .map((p) => {
        // never more of the amount than is left, like the allocation
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

test('property: punitory_cumulative in SQL equals cumulativePunitory to the cent', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(arbInput, arbTerms), { minLength: 1, maxLength: 20 }), async (cases) => {
      const got = await inSql(cases);
      cases.forEach(([input, t], n) => assert.equal(got[n], inTs(input, t), JSON.stringify({ input, t })));
    }),
    { numRuns: 100 },
  );
});

test('punitory_cumulative: the worked cases of the domain tests', async () => {
  const due = '2024-01-01';
  const d = (k: number) => addDays(due, k);
  const pay = (k: number, principal: string, punitory = '0'): InstallmentPayment => ({
    paidOn: d(k),
    principal: money(principal),
    punitory: money(punitory),
  });
  const t = (x: Partial<PunitoryTerms> = {}): PunitoryTerms => ({
    dailyRate: money('0.005'),
    mode: 'simple_outstanding',
    graceDays: 0,
    maxDays: 0,
    capPct: money(0),
    ...x,
  });
  const cases: [Partial<PunitoryInput> & { asOf: string }, Partial<PunitoryTerms>, string][] = [
    [{ payments: [pay(10, '1000')], asOf: d(60) }, {}, '50.00'],
    [{ payments: [pay(5, '1000')], asOf: d(60) }, { graceDays: 5 }, '0.00'],
    [{ payments: [pay(6, '1000')], asOf: d(60) }, { graceDays: 5 }, '30.00'],
    [{ asOf: d(30) }, { maxDays: 7 }, '35.00'],
    [{ asOf: d(200) }, { capPct: money('33.3') }, '333.00'],
    [{ payments: [pay(4, '500'), pay(10, '500')], asOf: d(90) }, {}, '35.00'],
    [{ payments: [pay(4, '500')], asOf: d(10) }, { mode: 'full_amount' }, '50.00'],
    [{ asOf: d(10) }, { mode: 'compound' }, '51.14'],
    [{ payments: [pay(2, '0', '20.10')], asOf: d(4) }, { mode: 'compound', dailyRate: money('0.01') }, '40.20'],
    [{ asOf: d(10), stopDate: d(3) }, {}, '15.00'],
    [{ asOf: due }, {}, '0.00'],
  ];
  for (const [input, terms, want] of cases) {
    const full = { amount: money(1000), dueDate: due, payments: [], ...input };
    assert.equal((await inSql([[full, t(terms)]]))[0], want, JSON.stringify(input));
    assert.equal(inTs(full, t(terms)), want);
  }
});

test('punitory_cumulative stops at the storable maximum like the TypeScript, and never computes a number too large for numeric', async () => {
  const t = (x: Partial<PunitoryTerms>): PunitoryTerms => ({
    dailyRate: money('999999'),
    mode: 'compound',
    graceDays: 0,
    maxDays: 0,
    capPct: money(0),
    ...x,
  });
  const at = (amount: string, asOf: string, payments: InstallmentPayment[] = []): PunitoryInput => ({
    amount: money(amount),
    dueDate: '2000-01-01',
    asOf,
    payments,
  });
  const cases: [PunitoryInput, PunitoryTerms][] = [
    // a century at the largest rate: (10^6)^36,525 would be 219,150 digits, beyond numeric
    [at('999999999999.99', '2100-01-01'), t({})],
    [at('0.01', '2100-01-01'), t({})],
    [at('999999999999.99', '2100-01-01'), t({ mode: 'simple_outstanding' })],
    [at('999999999999.99', '2100-01-01'), t({ mode: 'full_amount' })],
    [at('1000', '2100-01-01'), t({ capPct: money('150') })],
    [at('999999999999.99', '2100-01-01'), t({ capPct: money('999999') })], // a cap above the maximum
    // around the edge: 1000 × 1.5^k crosses 10^12 between k = 51 and 52
    ...Array.from({ length: 6 }, (_, k): [PunitoryInput, PunitoryTerms] => [
      at('1000', addDays('2000-01-01', 49 + k)),
      t({ dailyRate: money('0.5') }),
    ]),
    // paid off later: the stretch before the payment already reached it
    [at('1000', '2001-01-01', [{ paidOn: '2000-06-01', principal: money('1000'), punitory: money('0') }]), t({})],
  ];
  const got = await inSql(cases);
  cases.forEach(([input, terms], n) => assert.equal(got[n], inTs(input, terms), JSON.stringify({ input, terms })));
  assert.deepEqual(got.slice(0, 6), [
    '999999999999.99',
    '999999999999.99',
    '999999999999.99',
    '999999999999.99',
    '1500.00',
    '999999999999.99',
  ]);
  assert.ok(
    got.slice(6, 12).includes('999999999999.99') && got[6] !== '999999999999.99',
    "holds: got.slice(6, 12).includes('999999999999.99') && got[6] !== '999999999999.99'",
  );
});

test('punitory_cumulative refuses payments out of date order', async () => {
  const input: PunitoryInput = {
    amount: money(1000),
    dueDate: '2024-01-01',
    asOf: '2024-02-01',
    payments: [
      { paidOn: '2024-01-10', principal: money(100), punitory: money(0) },
      { paidOn: '2024-01-05', principal: money(100), punitory: money(0) },
    ],
  };
  const t: PunitoryTerms = {
    dailyRate: money('0.005'),
    mode: 'simple_outstanding',
    graceDays: 0,
    maxDays: 0,
    capPct: money(0),
  };
  await assert.rejects(inSql([[input, t]]), /order of paid_on/);
});
