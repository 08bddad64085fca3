// Refinancing a credit whose plan has life insurance and an admin fee, into plans with an
// origination fee (docs/domain.md, "Fees and charges" and "Write-off, refinance, cancel"): the
// settlement is the whole balance, insurance and fees with their VAT included, split in the old
// credit's ledger as a payment would be, no cash; the new credit lends the balance and, when its
// origination fee is deducted from the amount, the fee on top, so that what it hands over is the
// balance settled to the cent. Figures worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../helpers/app.ts';
import { P35, P35_FEES, client, credit, detail, ledger, pay, payments, plan } from '../../helpers/book-in-cents.ts';
import { amountDisbursing, disbursedOf, money, originationOf } from '../../../src/domain/index.ts';
import fc from 'fast-check';

async function story(t: Parameters<typeof build>[0]) {
  const clock = settableClock('2026-03-01');
  const h = await build(t, { clock });
  // P35 with 21 % VAT, life insurance 1 % a month without VAT, an admin fee of 20 with VAT
  // (test/services/lending/fees.test.ts works it out): amounts 508.70, 505.37, 502.03 due 03-31,
  // 04-30, 05-31; insurance 10, 6.67, 3.33; fees 20 + 4.20 of VAT; the interest's VAT 24.50
  const p = await plan(h, P35_FEES);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' });
  // installment 1 paid on its due date; on 04-10 nothing is late: the balance is installments 2
  // and 3 whole, 505.37 + 502.03 = 1007.40
  clock.set('2026-03-31');
  await pay(h, d.credit.id, { amount: 508.7, paid_on: '2026-03-31' });
  clock.set('2026-04-10');
  return { h, clock, c, d };
}

/** The old credit after the refinance: settled to the cent, no cash, its parts as the schedule had them. */
async function assertSettled(h: any, creditId: string) {
  const old = await detail(h, creditId);
  assert.equal(old.credit.status, 'refinanced');
  // 508.70 in cash and 1007.40 settled: 1516.10, the whole of the installments; nothing owed
  assert.deepEqual([old.balance.paid, old.balance.outstanding], [1516.1, 0]);
  assert.ok(
    old.installments.every((i: any) => i.status === 'paid'),
    'every installment paid',
  );
  const settlement = (await ledger(h, creditId)).filter((e: any) => e.origin === 'refinance');
  assert.deepEqual(
    settlement.map((e: any) => [e.type, e.amount, e.effective_date]),
    [
      ['payment', 505.37, '2026-04-10'],
      ['payment', 502.03, '2026-04-10'],
    ],
  );
  // no cash: the payments are the one of 03-31 only
  assert.deepEqual(
    (await payments(h, creditId)).map((p: any) => p.amount),
    [508.7],
  );
  // the settlement split as the installments' parts: each one's fee with its VAT (24.20), its
  // insurance, the interest's VAT, the interest and the principal
  const receipt = json(await h.get(`/api/credits/${creditId}/payments/${settlement[0].payment_id}/receipt`));
  assert.equal(receipt.payment.origin, 'refinance');
  assert.deepEqual(
    receipt.applied.map((a: any) => [
      a.number,
      a.amount,
      a.fees,
      a.insurance,
      a.vat,
      a.interest,
      a.principal,
      a.charges,
    ]),
    [
      [2, 505.37, 24.2, 6.67, 24.5, 116.67, 333.33, 0],
      [3, 502.03, 24.2, 3.33, 24.5, 116.66, 333.34, 0],
    ],
  );
}

test('refinance into a plan with a financed origination fee: the balance with insurance and fees settled, the fee on the new principal', async (t) => {
  const { h, d } = await story(t);
  // a fixed fee of 50 with its VAT 10.50, financed
  const np = await plan(h, {
    ...P35,
    vat_rate: 0.21,
    fees: [{ type: 'origination', amount: 50, vat: true, financed: true }],
  });
  const res = await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: np.id });
  assert.equal(res.statusCode, 201, res.body);
  const n = json(res);
  // amount the balance 1007.40, handed over (to the settlement) in full; principal 1007.40 + 60.50
  // = 1067.90; interest 35 % = 373.765 → 373.77, its VAT 78.49; total 1520.16 in 3 of 506.72
  assert.deepEqual(
    [n.credit.amount, n.credit.disbursed, n.credit.total, n.credit.start_date, n.credit.refinanced_from_id],
    [1007.4, 1007.4, 1520.16, '2026-04-10', d.credit.id],
  );
  assert.deepEqual(
    n.installments.map((i: any) => [i.amount, i.principal, i.interest, i.vat, i.insurance, i.fees]),
    [
      [506.72, 355.97, 124.59, 26.16, 0, 0],
      [506.72, 355.97, 124.59, 26.16, 0, 0],
      [506.72, 355.96, 124.59, 26.17, 0, 0],
    ],
  );
  await assertSettled(h, d.credit.id);
  // a refinance hands no cash over: the summary's disbursed is the first credit's 1000 only
  assert.equal(json(await h.get('/api/reports/summary')).disbursed, 1000);
});

test('refinance into a plan with a deducted origination fee: the amount covers the balance and the fee, handed over is the balance', async (t) => {
  const { h, d } = await story(t);
  // 5 % with VAT, deducted from the amount lent
  const np = await plan(h, { ...P35, vat_rate: 0.21, fees: [{ type: 'origination', rate: 0.05, vat: true }] });
  // lending only the balance would hand over 1007.40 − 50.37 − 10.58 = 946.45: not enough to settle
  const short = await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: np.id, amount: 1007.4 });
  assert.equal(short.statusCode, 422, short.body);
  assert.deepEqual(json(short).details, [{ path: '/amount', message: 'at least 1072.27' }]);
  assert.equal((await detail(h, d.credit.id)).credit.status, 'active', 'a refusal changes nothing');

  // the least amount: 1007.40 / (1 − 0.05 × 1.21) = 1072.2724 → 1072.27: fee 53.61, its VAT
  // 11.26, handed over 1072.27 − 64.87 = 1007.40 (1072.26 would hand over 1007.39)
  const res = await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: np.id });
  assert.equal(res.statusCode, 201, res.body);
  const n = json(res);
  // interest 35 % of 1072.27 = 375.2945 → 375.29, its VAT 78.81; total 1526.37 in 3 of 508.79
  assert.deepEqual([n.credit.amount, n.credit.disbursed, n.credit.total], [1072.27, 1007.4, 1526.37]);
  assert.deepEqual(
    n.installments.map((i: any) => [i.amount, i.principal, i.interest, i.vat]),
    [
      [508.79, 357.42, 125.1, 26.27],
      [508.79, 357.42, 125.1, 26.27],
      [508.79, 357.43, 125.09, 26.27],
    ],
  );
  await assertSettled(h, d.credit.id);
});

test('amountDisbursing: the least amount whose cash handed over covers the target, to the cent', () => {
  const vat = money('0.21');
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 100_000_000 }),
      fc.integer({ min: 0, max: 3000 }),
      fc.boolean(),
      fc.boolean(),
      (targetCents, feeThousandths, withVat, byRate) => {
        const target = money(targetCents).div(100);
        const fees = [
          byRate
            ? { type: 'origination' as const, rate: feeThousandths / 10_000, vat: withVat }
            : { type: 'origination' as const, amount: feeThousandths, vat: withVat },
        ];
        const a = amountDisbursing(target, fees, vat)!;
        const handed = (x: typeof a) => disbursedOf(x, originationOf(fees, x, vat));
        assert.ok(handed(a).gte(target), `${a} hands over ${handed(a)} < ${target}`);
        assert.ok(handed(a.minus('0.01')).lt(target), `${a} is not the least: one cent less hands over enough`);
      },
    ),
  );
  // financed or none: the target itself
  assert.equal(amountDisbursing(money(100), [], vat)!.toFixed(2), '100.00');
  assert.equal(
    amountDisbursing(money(100), [{ type: 'origination', amount: 5, vat: true, financed: true }], vat)!.toFixed(2),
    '100.00',
  );
  // a rate that with its VAT takes it all: none
  assert.equal(amountDisbursing(money(100), [{ type: 'origination', rate: 1, vat: true }], vat), null);
});

test('reversing a payment that paid the admin fee and the insurance: the later payment pays them again, in order', async (t) => {
  const clock = settableClock('2026-03-01');
  const h = await build(t, { clock });
  const p = await plan(h, P35_FEES);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' });
  // 30 on 03-10: the fee with its VAT 24.20, then 5.80 of the insurance (10); 100 on 03-20: the
  // insurance left 4.20, the interest's VAT 24.50, interest 71.30
  clock.set('2026-03-10');
  const first = await pay(h, d.credit.id, { amount: 30, paid_on: '2026-03-10' });
  const firstId = first.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;
  clock.set('2026-03-20');
  const second = await pay(h, d.credit.id, { amount: 100, paid_on: '2026-03-20' });
  const secondId = second.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;
  const slices = async (id: string) =>
    json(await h.get(`/api/credits/${d.credit.id}/payments/${id}/receipt`)).applied.map((a: any) => [
      a.amount,
      a.fees,
      a.insurance,
      a.vat,
      a.interest,
      a.principal,
    ]);
  assert.deepEqual(await slices(secondId), [[100, 0, 4.2, 24.5, 71.3, 0]]);
  // reversed on 03-25: the 100 is allocated again as if the 30 never was: the fee 24.20, the
  // insurance 10, the interest's VAT 24.50, interest 100 − 58.70 = 41.30; installment 1 (not due
  // until 03-31, so no punitory) owes 508.70 − 100 = 408.70; the credit 1516.10 − 100 = 1416.10
  clock.set('2026-03-25');
  const rev = await h.post(`/api/credits/${d.credit.id}/payments/${firstId}/reverse`, { reason: 'rechazado' });
  assert.equal(rev.statusCode, 200, rev.body);
  assert.deepEqual(await slices(secondId), [[100, 24.2, 10, 24.5, 41.3, 0]]);
  const after = await detail(h, d.credit.id);
  assert.deepEqual(
    [after.installments[0].paid, after.installments[0].outstanding, after.balance.paid, after.balance.outstanding],
    [100, 408.7, 100, 1416.1],
  );
  // the reversal cancels the 30 exactly, in the same parts: the ledger nets the payment to 0
  const entries = (await ledger(h, d.credit.id)).filter((e: any) => e.payment_id === firstId);
  assert.equal(
    entries.reduce((s: number, e: any) => s + Math.round(e.amount * 100), 0),
    0,
    'the reversed payment nets to nothing',
  );
});
