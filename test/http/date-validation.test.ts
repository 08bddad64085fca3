// Every date a request carries, in a body or a query string, is a real calendar date from
// 0001-01-01 to 9999-12-31, or the request is a 400 validation_failed: never a 500.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, type Harness } from '../helpers/app.ts';

const BAD = [
  '0000-01-01',
  '0000-12-31',
  '2024-02-30',
  '2023-02-29',
  '2024-13-01',
  '2024-00-10',
  '10000-01-01',
  '-0001-01-01',
  '2024-1-01',
  '20240101',
];

function assert400(res: Awaited<ReturnType<Harness['get']>>, what: string) {
  assert.equal(res.statusCode, 400, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  assert.equal(json(res).code, 'validation_failed', what);
}

async function book(h: Harness) {
  const plan = json(await h.post('/api/credit-configs', { name: 'three', installments_count: 3 }));
  const client = json(await h.post('/api/clients', { dni: '20000001' }));
  const branch = json(await h.post('/api/branches', { name: 'Centro' }));
  const res = await h.post(`/api/clients/${client.id}/credits`, { credit_config_id: plan.id, amount: 300 });
  assert.equal(res.statusCode, 201, res.body);
  return { plan, client, branch, credit: json(res).credit };
}

test('the summary refuses an impossible as_of with a 400, with and without branch_id', async (t) => {
  const h = await build(t);
  const { branch } = await book(h);
  for (const d of BAD) {
    const q = encodeURIComponent(d);
    assert400(await h.get(`/api/reports/summary?as_of=${q}`), `as_of=${d}`);
    assert400(await h.get(`/api/reports/summary?as_of=${q}&branch_id=${branch.id}`), `as_of=${d} with branch_id`);
  }
  // the edges of the calendar are dates: the first day answers, the last is after today (400 as well, by rule)
  assert.equal((await h.get('/api/reports/summary?as_of=0001-01-01')).statusCode, 200);
  assert.equal((await h.get(`/api/reports/summary?as_of=0001-01-01&branch_id=${branch.id}`)).statusCode, 200);
  assert400(await h.get('/api/reports/summary?as_of=9999-12-31'), 'as_of=9999-12-31 (after today)');
});

test('exports refuse an impossible from or to with a 400 before the first byte; the calendar edges answer', async (t) => {
  const h = await build(t);
  await book(h);
  for (const dataset of ['clients', 'credits', 'installments', 'ledger', 'logs']) {
    for (const d of [
      ...BAD,
      '0000-06-01T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '10000-01-01T00:00:00Z',
    ]) {
      for (const name of ['from', 'to'])
        assert400(
          await h.get(`/api/reports/exports/${dataset}.csv?${name}=${encodeURIComponent(d)}`),
          `${dataset} ${name}=${d}`,
        );
    }
    for (const q of [
      'from=0001-01-01',
      'to=9999-12-31',
      'from=0001-01-01&to=9999-12-31',
      'to=9999-12-31T23:59:59-12:00',
      'from=0001-01-01T00:00:00%2B14:00',
    ]) {
      const res = await h.get(`/api/reports/exports/${dataset}.csv?${q}`);
      assert.equal(res.statusCode, 200, `${dataset} ${q}: ${res.body.slice(0, 200)}`);
    }
  }
});

test('credits, payments, refinance and simulate refuse an impossible date with a 400 and write nothing', async (t) => {
  const h = await build(t);
  const { plan, client, credit } = await book(h);
  for (const d of [...BAD, '2024-01-01T00:00:00Z', '']) {
    assert400(
      await h.post(`/api/clients/${client.id}/credits`, { credit_config_id: plan.id, amount: 100, start_date: d }),
      `start_date=${d}`,
    );
    assert400(await h.post(`/api/credits/${credit.id}/payments`, { amount: 10, paid_on: d }), `paid_on=${d}`);
    assert400(
      await h.post(`/api/credits/${credit.id}/refinance`, { credit_config_id: plan.id, start_date: d }),
      `refinance start_date=${d}`,
    );
    assert400(
      await h.post(`/api/credit-configs/${plan.id}/simulate`, { amount: 100, start_date: d }),
      `simulate start_date=${d}`,
    );
  }
  assert.equal(json(await h.get(`/api/clients/${client.id}/credits`)).length, 1, 'no credit was created');
  const after = json(await h.get(`/api/credits/${credit.id}`));
  assert.equal(after.credit.status, 'active');
  assert.ok(!after.ledgerEntries.some((e: { type: string }) => e.type === 'payment'), 'no payment was registered');
});

test('the calendar edges are dates: 0001-01-01 and 9999-12-31 are refused by rule (422), never a 500', async (t) => {
  const h = await build(t);
  const { plan, client, credit } = await book(h);
  for (const d of ['0001-01-01', '9999-12-31']) {
    for (const res of [
      await h.post(`/api/clients/${client.id}/credits`, { credit_config_id: plan.id, amount: 100, start_date: d }),
      await h.post(`/api/credits/${credit.id}/payments`, { amount: 10, paid_on: d }),
      await h.post(`/api/credit-configs/${plan.id}/simulate`, { amount: 100, start_date: d }),
    ]) {
      assert.ok([201, 200, 422].includes(res.statusCode), `${d}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  }
});
