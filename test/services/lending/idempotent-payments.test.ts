import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../../helpers/app.ts';
import { testDbKind } from '../../helpers/db.ts';
import { assertLedgerInvariant, client, credit, day, plan } from '../../helpers/book.ts';

const withKey = (key: string) => ({ 'idempotency-key': key });

test('Idempotency-Key: a retry replays the first answer and writes nothing; another request under the key is 409', async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 2, daily_punitory_rate: 0.01 });
  const c = await client(h);
  const post = (url: string, payload: object, key: string) =>
    h.req({ method: 'POST', url, payload, headers: withKey(key) });

  const first = await post(
    `/api/clients/${c.id}/credits`,
    { credit_config_id: p.id, amount: 1000, start_date: day(-40) },
    'create-1',
  );
  assert.equal(first.statusCode, 201, first.body);
  // the same body, keys in another order: the same request
  const again = await post(
    `/api/clients/${c.id}/credits`,
    { start_date: day(-40), amount: 1000, credit_config_id: p.id },
    'create-1',
  );
  assert.equal(again.statusCode, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.deepEqual(json(again), json(first));
  assert.equal(json(await h.get('/api/credits')).total, 1);
  const id = json(first).credit.id;

  const pay1 = await post(`/api/credits/${id}/payments`, { amount: 100 }, 'pay-1');
  assert.equal(pay1.statusCode, 201, pay1.body);
  const pay1b = await post(`/api/credits/${id}/payments`, { amount: 100 }, 'pay-1');
  assert.deepEqual([pay1b.statusCode, json(pay1b)], [201, json(pay1)]);
  const payments = json(await h.get(`/api/credits/${id}/ledger`)).filter((e: any) => e.type === 'payment');
  assert.equal(payments.length, 1);

  // the same key for something else
  assert.equal((await post(`/api/credits/${id}/payments`, { amount: 101 }, 'pay-1')).statusCode, 409);
  assert.equal(
    (await post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 100 }, 'pay-1')).statusCode,
    409,
  );
  // keys belong to a business: another one may use the same key freely
  const stranger = await h.newTenant();
  const sp = json(await h.post('/api/credit-configs', { name: 'x' }, stranger.fullKey));
  const sc = json(await h.post('/api/clients', { dni: '1' }, stranger.fullKey));
  const theirs = await h.req({
    method: 'POST',
    url: `/api/clients/${sc.id}/credits`,
    payload: { credit_config_id: sp.id, amount: 5 },
    headers: withKey('pay-1'),
    key: stranger.fullKey,
  });
  assert.equal(theirs.statusCode, 201, theirs.body);

  // a refusal is not stored: the corrected request under the same key goes through
  assert.equal((await post(`/api/credits/${id}/payments`, { amount: 99999 }, 'pay-2')).statusCode, 422);
  assert.equal((await post(`/api/credits/${id}/payments`, { amount: 50 }, 'pay-2')).statusCode, 201);
  // malformed keys
  assert.equal((await post(`/api/credits/${id}/payments`, { amount: 1 }, 'x'.repeat(256))).statusCode, 400);
  assert.equal((await post(`/api/credits/${id}/payments`, { amount: 1 }, 'has space')).statusCode, 400);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('Idempotency-Key: the same payment sent twice at once is written once', {
  skip: testDbKind() !== 'postgres' ? 'needs PostgreSQL' : false,
}, async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 2 });
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000 });
  const res = await Promise.all(
    Array.from({ length: 6 }, () =>
      h.req({
        method: 'POST',
        url: `/api/credits/${d.credit.id}/payments`,
        payload: { amount: 10 },
        headers: withKey('twice'),
      }),
    ),
  );
  assert.deepEqual(
    res.map((r) => r.statusCode),
    [201, 201, 201, 201, 201, 201],
  );
  assert.ok(
    res.every((r) => r.body === res[0]!.body),
    'every r of res: r.body === res[0].body',
  );
  const payments = json(await h.get(`/api/credits/${d.credit.id}/ledger`)).filter((e: any) => e.type === 'payment');
  assert.equal(payments.length, 1);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});
