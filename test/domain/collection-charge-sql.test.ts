// The SQL function collection_charge (migration 055) against the TypeScript collectionChargeOf:
// the same amount, VAT, total and after_days to the cent on random fee lists and VAT rates, on the
// test database of this process (PGlite or PostgreSQL, test/helpers/db.ts).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import { sharedTestDb } from '../helpers/db.ts';
import { collectionChargeOf, money } from '../../src/domain/index.ts';
import type { PlanFee } from '../../src/domain/index.ts';

before(() => sharedTestDb()); // opening and migrating is not the function's time

type Case = { fees: PlanFee[]; vatRate: string };

/** collection_charge of each case as text, in one statement; null where it returns no row. */
async function inSql(cases: Case[]): Promise<(string | null)[]> {
  const db = await sharedTestDb();
  const rows = cases.map(
    (c, n) => sql`(${n}::integer, ${JSON.stringify(c.fees)}::jsonb, ${c.vatRate}::numeric(12, 6))`,
  );
  const r = await sql<{ r: string | null }>`
    SELECT CASE WHEN f.after_days IS NULL THEN NULL
                ELSE f.amount::text || ' ' || f.vat::text || ' ' || f.total::text || ' ' || f.after_days END AS r
      FROM (VALUES ${sql.join(rows)}) AS v (n, fees, vat_rate)
      LEFT JOIN LATERAL collection_charge(v.fees, v.vat_rate) f ON true
     ORDER BY v.n`.execute(db.kysely);
  return r.rows.map((x) => x.r);
}

/** The same figures from TypeScript, each to the cent as SQL writes them. */
function inTs(c: Case): string | null {
  const charge = collectionChargeOf(c.fees, money(c.vatRate));
  if (!charge) return null;
  return `${charge.amount.toFixed(2)} ${charge.vat.toFixed(2)} ${charge.total.toFixed(2)} ${charge.afterDays}`;
}

// as SQL prints them (a VAT of nothing is 0, without decimals): compare the numbers, not the text
const same = (a: string | null, b: string | null) =>
  a === null || b === null ? a === b : a.split(' ').every((x, k) => money(x).eq(money(b.split(' ')[k]!)));

const arbOther: fc.Arbitrary<PlanFee> = fc.oneof(
  fc.record({ type: fc.constant('admin' as const), amount: fc.integer({ min: 0, max: 10_000 }), vat: fc.boolean() }),
  fc.record({ type: fc.constant('insurance' as const), rate: fc.constantFrom(0.001, 0.0125), vat: fc.boolean() }),
);

// amounts to the tenth of a cent, so the rounding of the amount (half away from zero) is exercised
const arbCollection: fc.Arbitrary<PlanFee> = fc.record({
  type: fc.constant('collection' as const),
  amount: fc
    .oneof(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 1_000_000_000 }))
    .map((m) => m / 1000),
  vat: fc.boolean(),
  after_days: fc.integer({ min: 1, max: 120 }),
});

const arbCase: fc.Arbitrary<Case> = fc.record({
  fees: fc
    .tuple(
      fc.array(arbOther, { maxLength: 2 }),
      fc.option(arbCollection, { nil: null }),
      fc.array(arbOther, { maxLength: 1 }),
    )
    .map(([a, c, b]) => (c ? [...a, c, ...b] : [...a, ...b])),
  // vat_rate as stored: numeric(12, 6)
  vatRate: fc
    .oneof(fc.constantFrom(0, 210_000, 105_000), fc.integer({ min: 0, max: 1_000_000 }))
    .map((m) => money(m).div(1_000_000).toFixed()),
});

test('property: collection_charge in SQL equals collectionChargeOf to the cent', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(arbCase, { minLength: 1, maxLength: 20 }), async (cases) => {
      const got = await inSql(cases);
      cases.forEach((c, n) => assert.ok(same(got[n]!, inTs(c)), `${got[n]} ≠ ${inTs(c)}: ${JSON.stringify(c)}`));
    }),
    { numRuns: 40 },
  );
});

test('collection_charge: worked cases', async () => {
  const fee = (amount: number, vat: boolean): PlanFee[] => [{ type: 'collection', amount, vat, after_days: 10 }];
  const cases: [Case, string | null][] = [
    [{ fees: fee(100.005, true), vatRate: '0.21' }, '100.01 21.00 121.01 10'],
    [{ fees: fee(50, false), vatRate: '0.21' }, '50.00 0 50.00 10'],
    [{ fees: [{ type: 'admin', amount: 5, vat: true }], vatRate: '0.21' }, null],
    [{ fees: [], vatRate: '0' }, null],
  ];
  const got = await inSql(cases.map(([c]) => c));
  cases.forEach(([c, want], n) => {
    assert.equal(got[n], want, JSON.stringify(c));
    assert.ok(same(inTs(c), want), `the TypeScript: ${inTs(c)} for ${JSON.stringify(c)}`);
  });
});

// the reads join it once per credit (per installment on a book): called in FROM, the planner must
// see its SELECT, not a call it cannot look into (a STRICT, VOLATILE or plpgsql definition is not inlined)
test('collection_charge is inlined: a plan reads jsonb_array_elements, never the function', async () => {
  const db = await sharedTestDb();
  const plan = await sql<Record<string, string>>`
    EXPLAIN SELECT f.total FROM (VALUES ('[]'::jsonb, 0.21::numeric)) AS v (fees, vat_rate)
      LEFT JOIN LATERAL collection_charge(v.fees, v.vat_rate) f ON true`.execute(db.kysely);
  const text = plan.rows.map((r) => Object.values(r)[0]).join('\n');
  assert.ok(/jsonb_array_elements/.test(text), `the plan reads the fees itself:\n${text}`);
  assert.ok(!/collection_charge/.test(text), `the plan calls no function collection_charge:\n${text}`);
});
