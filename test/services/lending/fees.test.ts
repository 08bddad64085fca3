// Fees and charges through the API (docs/domain.md, "Fees and charges"), so far the origination
// fee: deducted from the cash handed over (disbursed = amount − fee − its VAT) or financed (added
// to the principal the schedule is built on; disbursed = amount). Figures worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../helpers/app.ts';
import { P35, client, credit, detail, plan } from '../../helpers/book-in-cents.ts';

test("a deducted origination fee with VAT: the schedule is the amount's, disbursed is less, reports count the cash", async (t) => {
  const h = await build(t, { clock: settableClock('2026-03-01') });
  // no interest, 21 % VAT, a 5 % fee with VAT, deducted
  const p = await plan(h, {
    installments_count: 3,
    vat_rate: 0.21,
    fees: [{ type: 'origination', rate: 0.05, vat: true }],
  });
  assert.deepEqual(p.fees, [{ type: 'origination', rate: 0.05, vat: true }]);
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
  assert.ok(d.cost.cft_tea > 0);
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
  assert.ok(d.cost.cft_tea > b.cost.cft_tea);
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
