// Fees and charges through the API (docs/domain.md, "Fees and charges"), so far the origination
// fee: deducted from the cash handed over (disbursed = amount − fee − its VAT) or financed (added
// to the principal the schedule is built on; disbursed = amount). Figures worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../helpers/app.ts';
import { P35, P35_FEES, client, credit, detail, pay, plan } from '../../helpers/book-in-cents.ts';

test("a deducted origination fee with VAT: the schedule is the amount's, disbursed is less, reports count the cash", async (t) => {
  const h = await build(t, { clock: settableClock('2026-03-01') });
  // no interest, 21 % VAT, a 5 % fee with VAT, deducted
  const p = await plan(h, {
    installments_count: 3,
    vat_rate: 0.21,
    fees: [{ type: 'origination', rate: 0.05, vat: true }],
  });
  // financed omitted answers its default, false
  assert.deepEqual(p.fees, [{ type: 'origination', rate: 0.05, vat: true, financed: false }]);
  const c = await client(h);
  // fee 1000 × 5 % = 50, its VAT 50 × 21 % = 10.50: disbursed 1000 − 60.50 = 939.50; the schedule
  // is built on 1000: 333.33, 333.33, 333.34
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' });
  assert.deepEqual([d.credit.amount, d.credit.total, d.credit.disbursed], [1000, 1000, 939.5]);
  assert.deepEqual(
    d.installments.map((i: any) => [i.amount, i.principal]),
    [
      [333.33, 333.33],
      [333.33, 333.33],
      [333.34, 333.34],
    ],
  );
  // the cost counts the fee: 1000 repaid for 939.50 handed over is more than nothing
  assert.ok(d.cost.cft_tea > 0, 'holds: d.cost.cft_tea > 0');
  // the plan's simulation discloses the same cost
  const sim = json(await h.post(`/api/credit-configs/${p.id}/simulate`, { amount: 1000, start_date: '2026-03-01' }));
  assert.equal(sim.cost.cft_tea, d.cost.cft_tea);
  // and the fee's parts and the cash handed over, as the credit will have them
  assert.deepEqual(sim.fees, [{ type: 'origination', amount: 50, vat: 10.5, financed: false }]);
  assert.equal(sim.disbursed, 939.5);
  // the summary counts cash disbursed
  const s = json(await h.get('/api/reports/summary'));
  assert.equal(s.disbursed, 939.5);

  // editing the plan never changes the credit
  const res = await h.put(`/api/credit-configs/${p.id}`, { fees: [] });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(json(res).fees, []);
  assert.equal((await detail(h, d.credit.id)).credit.disbursed, 939.5);
  // a plan without fees: disbursed = amount
  const plain = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' });
  assert.equal(plain.credit.disbursed, 1000);
  assert.equal(json(await h.get('/api/reports/summary')).disbursed, 1939.5);
});

test('a financed origination fee is added to the principal the schedule is built on; disbursed is the amount', async (t) => {
  const h = await build(t, { clock: settableClock('2026-03-01') });
  // P35 (35 % flat, 3 installments) with a fixed fee of 100, no VAT, financed
  const p = await plan(h, { ...P35, fees: [{ type: 'origination', amount: 100, vat: false, financed: true }] });
  const c = await client(h);
  // principal 1000 + 100 = 1100; total 1100 × 1.35 = 1485: 495 × 3 (principal 366.67, 366.67,
  // 366.66; interest 128.33, 128.33, 128.34)
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' });
  assert.deepEqual([d.credit.amount, d.credit.total, d.credit.disbursed], [1000, 1485, 1000]);
  const sim = json(await h.post(`/api/credit-configs/${p.id}/simulate`, { amount: 1000, start_date: '2026-03-01' }));
  assert.deepEqual(
    [sim.fees, sim.disbursed, sim.total],
    [[{ type: 'origination', amount: 100, vat: 0, financed: true }], 1000, 1485],
  );
  assert.deepEqual(
    d.installments.map((i: any) => [i.amount, i.principal, i.interest]),
    [
      [495, 366.67, 128.33],
      [495, 366.67, 128.33],
      [495, 366.66, 128.34],
    ],
  );
  // the same credit without the fee: 450 × 3 for 1000; with it, 1485 for the same 1000: a higher cost
  const bare = await plan(h, P35);
  const b = await credit(h, c.id, { credit_config_id: bare.id, amount: 1000, start_date: '2026-03-01' });
  assert.ok(d.cost.cft_tea > b.cost.cft_tea, 'holds: d.cost.cft_tea > b.cost.cft_tea');
  const bareSim = json(
    await h.post(`/api/credit-configs/${bare.id}/simulate`, { amount: 1000, start_date: '2026-03-01' }),
  );
  assert.deepEqual([bareSim.fees, bareSim.disbursed], [[], 1000]);
  assert.equal(d.cost.tna, b.cost.tna); // the rate on the principal is the plan's
});

test('bad fees are refused and change nothing', async (t) => {
  const h = await build(t, { clock: settableClock('2026-03-01') });
  const both = await h.post('/api/credit-configs', {
    name: 'x',
    fees: [{ type: 'origination', rate: 0.05, amount: 10, vat: false }],
  });
  assert.equal(both.statusCode, 422, both.body);
  assert.equal(json(both).details[0].path, '/fees/0');
  const unknown = await h.post('/api/credit-configs', { name: 'x', fees: [{ type: 'origination', vat: false, x: 1 }] });
  assert.equal(unknown.statusCode, 400, unknown.body);
  // a deducted fee of 100 on a credit of 100 hands nothing over
  const p = await plan(h, { fees: [{ type: 'origination', amount: 100, vat: false }] });
  const c = await client(h);
  const res = await h.post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 100 });
  assert.equal(res.statusCode, 422, res.body);
  assert.equal(json(res).details[0].path, '/amount');
  assert.equal(json(await h.get('/api/reports/summary')).disbursed, 0);
});

test('insurance and an admin fee: in each installment, paid first inside it, in the cost, rebated for periods not begun', async (t) => {
  const clock = settableClock('2026-03-01');
  const h = await build(t, { clock });
  // P35 with 21 % VAT, life insurance 1 % a month without VAT, an admin fee of 20 with VAT
  const p = await plan(h, P35_FEES);
  const c = await client(h);
  // interest 350, its VAT 73.50: 1423.50 over 3 = 474.50 each (interest 116.67, 116.67, 116.66;
  // VAT 24.50; principal 333.33, 333.33, 333.34). Insurance on the principal outstanding at the
  // start of each period: 1000 × 1 % = 10; 666.67 × 1 % = 6.67; 333.34 × 1 % = 3.33. Admin 20
  // and its VAT 4.20 each. Amounts 474.50 + 10 + 24.20 = 508.70, + 6.67: 505.37, + 3.33: 502.03;
  // vat 24.50 + 4.20 = 28.70 each; total 1516.10. Due 03-31, 04-30, 05-31.
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' });
  assert.deepEqual(
    d.installments.map((i: any) => [i.due_date, i.amount, i.principal, i.interest, i.insurance, i.fees, i.vat]),
    [
      ['2026-03-31', 508.7, 333.33, 116.67, 10, 20, 28.7],
      ['2026-04-30', 505.37, 333.33, 116.67, 6.67, 20, 28.7],
      ['2026-05-31', 502.03, 333.34, 116.66, 3.33, 20, 28.7],
    ],
  );
  assert.deepEqual([d.credit.total, d.credit.disbursed], [1516.1, 1000]);
  assert.deepEqual([d.balance.insurance, d.balance.fees, d.balance.vat, d.balance.outstanding], [20, 60, 86.1, 1516.1]);
  // the simulation shows the same schedule, the fees and the cost
  const sim = json(await h.post(`/api/credit-configs/${p.id}/simulate`, { amount: 1000, start_date: '2026-03-01' }));
  assert.deepEqual(
    sim.installments.map((i: any) => [i.amount, i.insurance, i.fees, i.vat]),
    d.installments.map((i: any) => [i.amount, i.insurance, i.fees, i.vat]),
  );
  // insurance 10 + 6.67 + 3.33 = 20, no VAT; admin 3 × 20 = 60 and its VAT 3 × 4.20 = 12.60
  assert.deepEqual(sim.fees, [
    { type: 'insurance', amount: 20, vat: 0, financed: false },
    { type: 'admin', amount: 60, vat: 12.6, financed: false },
  ]);
  assert.equal(sim.disbursed, 1000);
  assert.deepEqual(sim.cost, d.cost);
  // the cost counts them: the same plan without them discloses less
  const bare = await plan(h, { ...P35, vat_rate: 0.21 });
  const b = await credit(h, c.id, { credit_config_id: bare.id, amount: 1000, start_date: '2026-03-01' });
  assert.ok(d.cost.cft_tea > b.cost.cft_tea, `${d.cost.cft_tea} > ${b.cost.cft_tea}`);
  assert.equal(d.cost.tna, b.cost.tna);

  // 30 on 03-10: inside installment 1, the fee with its VAT (24.20) first, then the insurance (5.80)
  clock.set('2026-03-10');
  const first = await pay(h, d.credit.id, { amount: 30, paid_on: '2026-03-10' });
  const paymentId = first.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;
  const receipt = json(await h.get(`/api/credits/${d.credit.id}/payments/${paymentId}/receipt`));
  assert.deepEqual(
    receipt.applied.map((a: any) => [a.number, a.amount, a.fees, a.insurance, a.vat, a.interest, a.principal]),
    [[1, 30, 24.2, 5.8, 0, 0, 0]],
  );
  // the rest of installment 1 on its due date: 508.70 − 30 = 478.70
  clock.set('2026-03-31');
  await pay(h, d.credit.id, { amount: 478.7, paid_on: '2026-03-31' });

  // payoff on 04-10: installment 2's period (03-31 → 04-30, 30 days) has run 10 days: interest
  // 116.67 / 3 = 38.89, its VAT 24.50 / 3 = 8.17; its insurance 6.67 and fee 24.20 are owed in
  // full (the period has begun); principal 333.33: 411.26. Installment 3's period has not begun:
  // its principal 333.34 only. Payoff 744.60; rebate 505.37 − 411.26 = 94.11 and
  // 502.03 − 333.34 = 168.69: 262.80.
  clock.set('2026-04-10');
  const q = json(await h.get(`/api/credits/${d.credit.id}/payoff`));
  assert.equal(q.amount, 744.6);
  assert.deepEqual(q.breakdown, {
    due: 0,
    punitory: 0,
    charges: 0,
    principal: 666.67,
    interest: 38.89,
    vat: 8.17,
    insurance: 6.67,
    fees: 24.2,
    rebate: 262.8,
  });
  const closed = await pay(h, d.credit.id, { amount: 744.6, paid_on: '2026-04-10' });
  assert.equal(closed.credit.status, 'closed');
  const after = await detail(h, d.credit.id);
  assert.equal(after.balance.outstanding, 0);
  // paid in cash: 30 + 478.70 + 744.60 = 1253.30 = 1516.10 − 262.80
  assert.equal(after.balance.paid, 1516.1);

  // reversing the first payment reopens the credit: installment 1 owes 30 again and the payoff
  // of 04-10 is no longer one, so its rebate is reversed
  clock.set('2026-04-11');
  const rev = await h.post(`/api/credits/${d.credit.id}/payments/${paymentId}/reverse`, { reason: 'bounced' });
  assert.equal(rev.statusCode, 200, rev.body);
  const reopened = await detail(h, d.credit.id);
  assert.equal(reopened.credit.status, 'active');
  // 1516.10 − 478.70 − 744.60 = 292.80 plus the punitory of installment 1, late since 03-31
  assert.ok(reopened.balance.outstanding >= 292.8, String(reopened.balance.outstanding));
});

test('a plan takes one fee of each type, each with the fields its type takes', async (t) => {
  const h = await build(t, { clock: settableClock('2026-03-01') });
  const all = [
    { type: 'origination', rate: 0.03, vat: true, financed: true },
    { type: 'insurance', rate: 0.001, vat: false },
    { type: 'admin', amount: 50, vat: true },
    { type: 'collection', amount: 300, vat: true, after_days: 10 },
  ];
  const p = await plan(h, { fees: all });
  assert.deepEqual(p.fees, all);
  const bad: [unknown[], string][] = [
    [[{ type: 'insurance', amount: 5, vat: false }], '/fees/0/amount'],
    [[{ type: 'insurance', vat: false }], '/fees/0'],
    [[{ type: 'admin', rate: 0.01, vat: false }], '/fees/0/rate'],
    [[{ type: 'admin', amount: 5, vat: false, financed: true }], '/fees/0/financed'],
    [[{ type: 'origination', amount: 5, vat: false, after_days: 3 }], '/fees/0/after_days'],
    [[{ type: 'collection', amount: 5, vat: false }], '/fees/0'],
    [
      [
        { type: 'admin', amount: 5, vat: false },
        { type: 'admin', amount: 6, vat: false },
      ],
      '/fees/1/type',
    ],
  ];
  for (const [fees, path] of bad) {
    const res = await h.post('/api/credit-configs', { name: 'x', fees });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(json(res).details[0].path, path, res.body);
    const put = await h.put(`/api/credit-configs/${p.id}`, { fees });
    assert.equal(put.statusCode, 422, put.body);
  }
  // an unknown type or field is a malformed body
  for (const fees of [[{ type: 'stamp', amount: 5, vat: false }], [{ type: 'admin', amount: 5 }]]) {
    const res = await h.post('/api/credit-configs', { name: 'x', fees });
    assert.equal(res.statusCode, 400, res.body);
  }
  assert.deepEqual((await h.get(`/api/credit-configs/${p.id}`)).statusCode, 200);
  assert.deepEqual(json(await h.get(`/api/credit-configs/${p.id}`)).fees, all);
});
