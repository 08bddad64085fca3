// The origination fee's money rules (src/domain/fees.ts), by hand and as properties: the fee and its
// VAT are rounded to the cent; deducted, the cash handed over plus the fee and its VAT is exactly
// the amount; financed, the principal is exactly the amount plus them and the cash is the amount.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { disbursedOf, financedPrincipal, money, originationOf } from '../../src/domain/index.ts';

test('origination by hand: a rate with VAT, a fixed amount without, none', () => {
  const o = originationOf([{ type: 'origination', rate: 0.05, vat: true }], money(1000), money('0.21'));
  assert.deepEqual(
    [o.fee.toFixed(2), o.vat.toFixed(2), o.total.toFixed(2), o.financed],
    ['50.00', '10.50', '60.50', false],
  );
  assert.equal(disbursedOf(money(1000), o).toFixed(2), '939.50');
  assert.equal(financedPrincipal(money(1000), o).toFixed(2), '1000.00');
  // 3.333 % of 100.01 = 3.33366… → 3.33; VAT 0.6993 → 0.70
  const r = originationOf(
    [{ type: 'origination', rate: 0.03333, vat: true, financed: true }],
    money('100.01'),
    money('0.21'),
  );
  assert.deepEqual([r.fee.toFixed(2), r.vat.toFixed(2)], ['3.33', '0.70']);
  assert.equal(financedPrincipal(money('100.01'), r).toFixed(2), '104.04');
  assert.equal(disbursedOf(money('100.01'), r).toFixed(2), '100.01');
  const f = originationOf([{ type: 'origination', amount: 100, vat: false }], money(1000), money('0.21'));
  assert.deepEqual([f.fee.toFixed(2), f.vat.toFixed(2)], ['100.00', '0.00']);
  assert.equal(originationOf([], money(1000), money('0.21')).total.toFixed(2), '0.00');
});

const cents = fc.integer({ min: 1, max: 10_000_000_000 }).map((c) => money(c).div(100));
const fee = fc.record({
  rate: fc.option(
    fc.integer({ min: 0, max: 100_000 }).map((x) => x / 1_000_000),
    { nil: undefined },
  ),
  amount: fc.integer({ min: 0, max: 100_000_000 }).map((c) => c / 100),
  vat: fc.boolean(),
  financed: fc.boolean(),
  vatRate: fc.integer({ min: 0, max: 1000 }).map((x) => money(x).div(1000)),
});

test('properties: cents, never negative, and the amount split exactly', () => {
  fc.assert(
    fc.property(cents, fee, (amount, f) => {
      const spec =
        f.rate !== undefined
          ? { type: 'origination' as const, rate: f.rate, vat: f.vat, financed: f.financed }
          : { type: 'origination' as const, amount: f.amount, vat: f.vat, financed: f.financed };
      const o = originationOf([spec], amount, f.vatRate);
      for (const d of [o.fee, o.vat, o.total]) {
        assert.ok(d.gte(0));
        assert.ok(d.times(100).isInteger());
      }
      assert.ok(o.total.eq(o.fee.plus(o.vat)));
      if (!f.vat) assert.ok(o.vat.isZero());
      if (f.financed) {
        assert.ok(financedPrincipal(amount, o).eq(amount.plus(o.total)));
        assert.ok(disbursedOf(amount, o).eq(amount));
      } else {
        assert.ok(financedPrincipal(amount, o).eq(amount));
        assert.ok(disbursedOf(amount, o).plus(o.total).eq(amount));
      }
    }),
  );
});
