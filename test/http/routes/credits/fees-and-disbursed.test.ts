// Fees of a plan on the credits it grants, through the API only: origination deducted or financed,
// insurance on the balance, admin fees, their VAT, `disbursed`, the disclosed cost and the
// portfolio's cash disbursed. Every figure is worked out by hand in a comment next to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../../helpers/app.ts';
import { client, plan } from '../../../helpers/book-in-cents.ts';

const parts = (i: any) => [i.number, i.due_date, i.principal, i.interest, i.insurance, i.fees, i.vat, i.amount];

// 1000 in 2 installments, no interest, VAT 21 %, first due 30 days after 2024-01-01 (01-31, then 02-29)
const BASE = {
  installments_count: 2,
  interest_rate: 0,
  vat_rate: 0.21,
  days_until_first_payment: 30,
  cut_type: 'fixed',
};

test('a deducted origination fee, insurance and an admin fee: the installments, disbursed and the CFT', async (t) => {
  const h = await build(t, { clock: settableClock('2024-01-01') });
  const p = await plan(h, {
    ...BASE,
    fees: [
      { type: 'origination', rate: 0.05, vat: true },
      { type: 'insurance', rate: 0.01, vat: false },
      { type: 'admin', amount: 10, vat: true },
    ],
  });
  assert.deepEqual(
    p.fees.map((f: any) => [f.type, f.rate ?? null, f.amount ?? null, f.vat]),
    [
      ['origination', 0.05, null, true],
      ['insurance', 0.01, null, false],
      ['admin', null, 10, true],
    ],
  );
  const c = await client(h);
  const res = await h.post(`/api/clients/${c.id}/credits`, {
    credit_config_id: p.id,
    amount: 1000,
    start_date: '2024-01-01',
  });
  assert.equal(res.statusCode, 201, res.body);
  const d = json(res);
  // origination 5 % of 1000 = 50, its VAT 10.50, both deducted: 1000 − 60.50 = 939.50 handed over;
  // the credit's amount stays what was requested
  assert.deepEqual([d.credit.amount, d.credit.disbursed], [1000, 939.5]);
  // #1: principal 500, insurance 1 % of the 1000 outstanding = 10 (no VAT), admin 10 + VAT 2.10 → 522.10
  // #2: principal 500, insurance 1 % of the 500 outstanding = 5, admin 10 + VAT 2.10 → 517.10
  assert.deepEqual(d.installments.map(parts), [
    [1, '2024-01-31', 500, 0, 10, 10, 2.1, 522.1],
    [2, '2024-02-29', 500, 0, 5, 10, 2.1, 517.1],
  ]);
  // the ledger's installment entries are the amounts, fees included
  assert.deepEqual(
    d.ledgerEntries.map((e: any) => [e.type, e.amount]),
    [
      ['installment', 522.1],
      ['installment', 517.1],
    ],
  );
  // 522.10 + 517.10 = 1,039.20 to repay
  assert.equal(d.balance.outstanding, 1039.2);
  assert.deepEqual([d.balance.insurance, d.balance.fees, d.balance.vat], [15, 20, 4.2]);
  // CFT: r with 939.50 = 522.10 / (1+r)^(30/365) + 517.10 / (1+r)^(59/365) → 1.300356; no interest
  assert.deepEqual(d.cost, { tna: 0, tea: 0, cft_tea: 1.300356 });

  // simulate shows the same schedule, cost and disbursed, and stores nothing
  const sim = await h.post(`/api/credit-configs/${p.id}/simulate`, { amount: 1000, start_date: '2024-01-01' });
  assert.equal(sim.statusCode, 200, sim.body);
  const s = json(sim);
  assert.deepEqual(
    s.installments.map((i: any) => [i.number, i.amount, i.due_date]),
    d.installments.map((i: any) => [i.number, i.amount, i.due_date]),
  );
  assert.deepEqual([s.total, s.cost.cft_tea], [1039.2, 1.300356]);
  assert.equal(s.disbursed, 939.5);

  // the portfolio counts what was handed over as cash disbursed
  const summary = json(await h.get('/api/reports/summary?as_of=2024-01-01'));
  assert.equal(summary.disbursed, 939.5);
});

test('a financed origination fee is added to the principal: disbursed is the amount requested', async (t) => {
  const h = await build(t, { clock: settableClock('2024-01-01') });
  const p = await plan(h, { ...BASE, fees: [{ type: 'origination', rate: 0.05, vat: true, financed: true }] });
  const c = await client(h);
  const d = json(
    await h.post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' }),
  );
  // 50 + VAT 10.50 financed: a principal of 1,060.50 in 2 installments of 530.25; 1000 handed over
  assert.deepEqual([d.credit.amount, d.credit.disbursed], [1000, 1000]);
  assert.deepEqual(
    d.installments.map((i: any) => [i.principal, i.amount]),
    [
      [530.25, 530.25],
      [530.25, 530.25],
    ],
  );
  assert.equal(d.balance.outstanding, 1060.5);
  // 1000 = 530.25 / (1+r)^(30/365) + 530.25 / (1+r)^(59/365) → 0.621442
  assert.equal(d.cost.cft_tea, 0.621442);
});

test('an origination fee sent without financed answers financed: false, its default, on create, edit, read and list', async (t) => {
  const h = await build(t);
  const created = await h.post('/api/credit-configs', {
    name: 'deducted',
    fees: [
      { type: 'origination', rate: 0.05, vat: true },
      { type: 'admin', amount: 10, vat: false },
    ],
  });
  assert.equal(created.statusCode, 201, created.body);
  const p = json(created);
  // only the origination fee takes financed: the admin fee answers without it
  assert.deepEqual(p.fees, [
    { type: 'origination', rate: 0.05, vat: true, financed: false },
    { type: 'admin', amount: 10, vat: false },
  ]);
  assert.deepEqual(json(await h.get(`/api/credit-configs/${p.id}`)).fees, p.fees);
  assert.deepEqual(json(await h.get('/api/credit-configs'))[0].fees, p.fees);
  const edit = await h.put(`/api/credit-configs/${p.id}`, { fees: [{ type: 'origination', amount: 30, vat: false }] });
  assert.equal(edit.statusCode, 200, edit.body);
  assert.deepEqual(json(edit).fees, [{ type: 'origination', amount: 30, vat: false, financed: false }]);
});

test('a fixed origination fee without VAT, and insurance with VAT on a plan with flat interest', async (t) => {
  const h = await build(t, { clock: settableClock('2024-01-01') });
  const p = await plan(h, {
    ...BASE,
    interest_rate: 0.1,
    fees: [
      { type: 'origination', amount: 30, vat: false },
      { type: 'insurance', rate: 0.02, vat: true },
    ],
  });
  const c = await client(h);
  const d = json(
    await h.post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' }),
  );
  // 1000 − 30 (no VAT) = 970 handed over
  assert.equal(d.credit.disbursed, 970);
  // flat 10 %: interest 100, 50 an installment, its VAT 10.50;
  // #1: insurance 2 % of 1000 = 20, its VAT 4.20: 500 + 50 + 20 + (10.50 + 4.20) = 584.70
  // #2: insurance 2 % of 500 = 10, its VAT 2.10:  500 + 50 + 10 + (10.50 + 2.10) = 572.60
  assert.deepEqual(d.installments.map(parts), [
    [1, '2024-01-31', 500, 50, 20, 0, 14.7, 584.7],
    [2, '2024-02-29', 500, 50, 10, 0, 12.6, 572.6],
  ]);
  assert.equal(d.balance.outstanding, 1157.3);
});

test('editing a plan’s fees never changes the credits already granted with it', async (t) => {
  const h = await build(t, { clock: settableClock('2024-01-01') });
  const p = await plan(h, { ...BASE, fees: [{ type: 'admin', amount: 10, vat: true }] });
  const c = await client(h);
  const first = json(
    await h.post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' }),
  );
  const edit = await h.put(`/api/credit-configs/${p.id}`, { fees: [{ type: 'origination', rate: 0.1, vat: false }] });
  assert.equal(edit.statusCode, 200, edit.body);
  assert.deepEqual(
    json(edit).fees.map((f: any) => f.type),
    ['origination'],
  );
  const again = json(await h.get(`/api/credits/${first.credit.id}`));
  // still 510 + 2.10 VAT an installment, 1000 handed over
  assert.deepEqual(
    again.installments.map((i: any) => [i.fees, i.vat, i.amount]),
    [
      [10, 2.1, 512.1],
      [10, 2.1, 512.1],
    ],
  );
  assert.equal(again.credit.disbursed, 1000);
  // a new credit takes the new terms: 10 % of 1000 deducted, no admin fee
  const second = json(
    await h.post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' }),
  );
  assert.equal(second.credit.disbursed, 900);
  assert.deepEqual(
    second.installments.map((i: any) => [i.fees, i.amount]),
    [
      [0, 500],
      [0, 500],
    ],
  );
});

test('fees are validated: one of each type, known types only', async (t) => {
  const h = await build(t);
  const repeated = await h.post('/api/credit-configs', {
    name: 'x',
    fees: [
      { type: 'admin', amount: 1, vat: false },
      { type: 'admin', amount: 2, vat: false },
    ],
  });
  assert.ok([400, 422].includes(repeated.statusCode), `a repeated type is refused: ${repeated.body}`);
  const unknown = await h.post('/api/credit-configs', { name: 'x', fees: [{ type: 'stamp', amount: 1, vat: false }] });
  assert.deepEqual([unknown.statusCode, json(unknown).code], [400, 'validation_failed']);
  assert.equal(json(await h.get('/api/credit-configs')).length, 0);
});

test('a fee below zero is out of range: 400, on creation and on edit', async (t) => {
  const h = await build(t);
  for (const fee of [
    { type: 'admin', amount: -1, vat: false },
    { type: 'origination', amount: -0.01, vat: true },
    { type: 'collection', amount: -5, vat: false, after_days: 3 },
    { type: 'insurance', rate: -0.01, vat: false },
    { type: 'origination', rate: -0.05, vat: false },
  ]) {
    const r = await h.post('/api/credit-configs', { name: 'x', fees: [fee] });
    assert.deepEqual([r.statusCode, json(r).code], [400, 'validation_failed'], `${JSON.stringify(fee)}: ${r.body}`);
  }
  assert.equal(json(await h.get('/api/credit-configs')).length, 0, 'no plan was created');
  const p = await plan(h);
  const edit = await h.put(`/api/credit-configs/${p.id}`, { fees: [{ type: 'admin', amount: -10, vat: false }] });
  assert.deepEqual([edit.statusCode, json(edit).code], [400, 'validation_failed'], edit.body);
  assert.deepEqual(json(await h.get(`/api/credit-configs/${p.id}`)).fees, []);
});
