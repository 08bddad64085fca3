// The origination fee's money rules (src/domain/fees.ts), by hand and as properties: the fee and its
// VAT are rounded to the cent; deducted, the cash handed over plus the fee and its VAT is exactly
// the amount; financed, the principal is exactly the amount plus them and the cash is the amount.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  Dec,
  allocatePayment,
  disbursedOf,
  financedPrincipal,
  money,
  originationOf,
  round2,
  scheduleFor,
  type PlanFee,
} from '../../src/domain/index.ts';

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
        assert.ok(d.gte(0), 'holds: d.gte(0)');
        assert.ok(d.times(100).isInteger(), 'holds: d.times(100).isInteger()');
      }
      assert.ok(o.total.eq(o.fee.plus(o.vat)), 'holds: o.total.eq(o.fee.plus(o.vat))');
      if (!f.vat) assert.ok(o.vat.isZero(), 'holds: o.vat.isZero()');
      if (f.financed) {
        assert.ok(
          financedPrincipal(amount, o).eq(amount.plus(o.total)),
          'holds: financedPrincipal(amount, o).eq(amount.plus(o.total))',
        );
        assert.ok(disbursedOf(amount, o).eq(amount), 'holds: disbursedOf(amount, o).eq(amount)');
      } else {
        assert.ok(financedPrincipal(amount, o).eq(amount), 'holds: financedPrincipal(amount, o).eq(amount)');
        assert.ok(
          disbursedOf(amount, o).plus(o.total).eq(amount),
          'holds: disbursedOf(amount, o).plus(o.total).eq(amount)',
        );
      }
    }),
  );
});

test('properties of the insurance and the admin fee: per period, in cents, on the balance, amounts split exactly', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 100_00, max: 5_000_000_00 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 0, max: 400_000 }),
      fc.constantFrom('flat' as const, 'french' as const),
      fc.constantFrom(0, 0.105, 0.21),
      fc.integer({ min: 1, max: 5_000 }),
      fc.integer({ min: 0, max: 100_000 }),
      fc.boolean(),
      fc.boolean(),
      (cents, n, rateMicros, amortization, vatRate, insMicros, adminCents, insVat, adminVat) => {
        const amount = money(cents).div(100);
        const terms = {
          interest_rate: rateMicros / 1_000_000,
          installments_count: n,
          days_until_first_payment: 30,
          cut_type: 'fixed' as const,
          payment_day: 10,
          amortization,
          vat_rate: vatRate,
        };
        const fees: PlanFee[] = [
          { type: 'insurance', rate: insMicros / 1_000_000, vat: insVat },
          { type: 'admin', amount: adminCents / 100, vat: adminVat },
        ];
        const bare = scheduleFor(terms, amount, '2026-01-15');
        const withFees = scheduleFor({ ...terms, fees }, amount, '2026-01-15');
        let balance = amount;
        let added = money(0);
        withFees.installments.forEach((i, k) => {
          const b = bare.installments[k]!;
          // the interest, principal and due dates are those of the plan without fees
          assert.deepEqual([i.principal, i.interest, i.dueDate], [b.principal, b.interest, b.dueDate]);
          // insurance: rate × the principal outstanding at the start of the period, to the cent
          assert.ok(
            i.insurance.eq(round2(balance.times(insMicros).div(1_000_000))),
            'holds: i.insurance.eq(round2(balance.times(insMicros).div(1_000_000)))',
          );
          assert.ok(i.fees.eq(money(adminCents).div(100)), 'holds: i.fees.eq(money(adminCents).div(100))');
          assert.ok(
            i.insuranceVat.eq(insVat ? round2(i.insurance.times(vatRate)) : 0),
            'holds: i.insuranceVat.eq(insVat ? round2(i.insurance.times(vatRate)) : 0)',
          );
          assert.ok(
            i.feesVat.eq(adminVat ? round2(i.fees.times(vatRate)) : 0),
            'holds: i.feesVat.eq(adminVat ? round2(i.fees.times(vatRate)) : 0)',
          );
          // vat is the interest's plus theirs, and the parts add up to the amount exactly
          assert.ok(
            i.vat.eq(b.vat.plus(i.insuranceVat).plus(i.feesVat)),
            'holds: i.vat.eq(b.vat.plus(i.insuranceVat).plus(i.feesVat))',
          );
          assert.ok(
            i.amount.eq(i.principal.plus(i.interest).plus(i.insurance).plus(i.fees).plus(i.vat)),
            'an installment is its principal + interest + insurance + fees + vat',
          );
          for (const x of [i.insurance, i.fees, i.insuranceVat, i.feesVat]) assert.equal(x.decimalPlaces() <= 2, true);
          added = added.plus(i.amount.minus(b.amount));
          balance = balance.minus(i.principal);
        });
        assert.ok(withFees.total.eq(bare.total.plus(added)), 'holds: withFees.total.eq(bare.total.plus(added))');
      },
    ),
    { numRuns: 300 },
  );
});

test('properties of a payment inside an installment: fees and insurance first, then VAT, interest, principal; never more than each part owes', () => {
  const part = fc.integer({ min: 0, max: 100_000 }).map((c) => money(c).div(100));
  fc.assert(
    fc.property(part, part, part, part, part, fc.integer({ min: 1, max: 600_000 }), (f, s, v, i, p, payCents) => {
      const amount = f.plus(s).plus(v).plus(i).plus(p);
      fc.pre(amount.gt(0));
      const pay = money(payCents).div(100);
      const { slices, unallocated } = allocatePayment(pay, [
        {
          id: 'a',
          number: 1,
          amount,
          principalPaid: money(0),
          punitoryOwed: money(0),
          feesDue: f,
          insuranceDue: s,
          vatDue: v,
          interestDue: i,
        },
      ]);
      const applied = Dec.min(pay, amount);
      assert.ok(unallocated.eq(pay.minus(applied)), 'holds: unallocated.eq(pay.minus(applied))');
      const sl = slices[0]!;
      const parts = [
        sl.fees,
        sl.insurance,
        sl.vat,
        sl.interest,
        sl.principal.minus(sl.fees).minus(sl.insurance).minus(sl.vat).minus(sl.interest),
      ];
      const dues = [f, s, v, i, p];
      // each part is covered only once every part before it is covered in full
      let left = applied;
      parts.forEach((x, k) => {
        const expected = Dec.min(left, dues[k]!);
        assert.ok(x.eq(expected), `part ${k}: ${x} ≠ ${expected}`);
        left = left.minus(expected);
      });
    }),
    { numRuns: 500 },
  );
});
