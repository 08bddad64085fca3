// Payments' method, channel and external reference (API: payment channels): accepted and returned,
// validated, and a channel's reference pays once per business, whatever the credit: the second
// answers 409 duplicate_payment naming the payment that has it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../../helpers/app.ts';
import { client, credit, payments, plan } from '../../../helpers/book-in-cents.ts';

test('method, channel and external_reference: defaults, limits, and one payment per channel and reference', async (t) => {
  const h = await build(t, { clock: settableClock('2024-02-10') });
  const p = await plan(h, { installments_count: 2, days_until_first_payment: 30 });
  const c = await client(h);
  const a = (await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' })).credit.id;
  const b = (await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' })).credit.id;

  const first = await h.post(`/api/credits/${a}/payments`, {
    amount: 100,
    method: 'collection_network',
    channel: 'rapipago',
    external_reference: 'RP-0001',
  });
  assert.equal(first.statusCode, 201, first.body);
  const [made] = await payments(h, a);
  assert.deepEqual(
    [made.amount, made.method, made.channel, made.external_reference],
    [100, 'collection_network', 'rapipago', 'RP-0001'],
  );
  // the answer returns them as recorded, with the payment's id
  const answered = json(first);
  assert.deepEqual(
    [answered.payment_id, answered.method, answered.channel, answered.external_reference],
    [made.id, 'collection_network', 'rapipago', 'RP-0001'],
  );
  // a payment without them is cash, with neither channel nor reference
  const cash = await h.post(`/api/credits/${b}/payments`, { amount: 10, channel: '  ' });
  assert.equal(cash.statusCode, 201, cash.body);
  const plain = (await payments(h, b))[0];
  assert.deepEqual([plain.method, plain.channel ?? null, plain.external_reference ?? null], ['cash', null, null]);
  assert.deepEqual(
    [json(cash).payment_id, json(cash).method, json(cash).channel, json(cash).external_reference],
    [plain.id, 'cash', null, null],
  );

  // the same channel and reference on another credit of the business: 409, naming the first payment
  const dup = await h.post(`/api/credits/${b}/payments`, {
    amount: 100,
    method: 'collection_network',
    channel: 'rapipago',
    external_reference: 'RP-0001',
  });
  assert.equal(dup.statusCode, 409, dup.body);
  const body = json(dup);
  assert.equal(body.code, 'duplicate_payment');
  assert.equal(typeof body.error, 'string');
  assert.ok(Array.isArray(body.details), `details is an array: ${dup.body}`);
  assert.ok(JSON.stringify(body.details).includes(made.id), `details name the existing payment: ${dup.body}`);
  assert.equal((await payments(h, b)).length, 1, 'nothing was paid');
  // the same reference through another channel is another payment
  const otherChannel = await h.post(`/api/credits/${b}/payments`, {
    amount: 5,
    channel: 'pagofacil',
    external_reference: 'RP-0001',
  });
  assert.equal(otherChannel.statusCode, 201, otherChannel.body);
  // another business may use the same pair
  const other = await h.newTenant();
  const op = json(await h.post('/api/credit-configs', { name: 'x' }, other.fullKey));
  const oc = json(await h.post('/api/clients', { dni: '30111222' }, other.fullKey));
  const ocr = json(
    await h.post(
      `/api/clients/${oc.id}/credits`,
      { credit_config_id: op.id, amount: 100, start_date: '2024-02-01' },
      other.fullKey,
    ),
  );
  const theirs = await h.post(
    `/api/credits/${ocr.credit.id}/payments`,
    { amount: 10, channel: 'rapipago', external_reference: 'RP-0001' },
    other.fullKey,
  );
  assert.equal(theirs.statusCode, 201, theirs.body);

  // validation: the method's values, 40 characters of channel, 100 of reference
  for (const bad of [
    { amount: 1, method: 'bitcoin' },
    { amount: 1, channel: 'x'.repeat(41) },
    { amount: 1, external_reference: 'x'.repeat(101) },
    { amount: 1, method: 5 },
  ]) {
    const r = await h.post(`/api/credits/${b}/payments`, bad);
    assert.deepEqual([r.statusCode, json(r).code], [400, 'validation_failed'], JSON.stringify(bad));
  }
  for (const method of ['cash', 'transfer', 'debit', 'card', 'collection_network', 'other']) {
    const r = await h.post(`/api/credits/${b}/payments`, {
      amount: 1,
      method,
      channel: 'c'.repeat(40),
      external_reference: `${method}-${'r'.repeat(80)}`,
    });
    assert.equal(r.statusCode, 201, `${method}: ${r.body}`);
  }
});
