// The TypeScript SDK (docs/sdk.md): the committed sdk/ is exactly what `npm run sdk` would
// generate from the routes now (so a route change without a regenerated client fails here, in CI),
// and the client works against a real server: a plan, a client, a credit and a payment, and the
// Error body of a refusal, through the generated methods.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { openapiDocument } from '../../src/http/document.ts';
import { generate } from '../../scripts/sdk.ts';
import { createLendingClient } from '../../sdk/index.ts';
import { build } from '../helpers/app.ts';

test('sdk/ is what `npm run sdk` generates from the routes now', async () => {
  const files = await generate(await openapiDocument());
  assert.deepEqual(Object.keys(files).sort(), [
    'sdk/openapi.json',
    'sdk/operations.ts',
    'sdk/package.json',
    'sdk/resources.ts',
    'sdk/schema.ts',
    'sdk/types.ts',
  ]);
  for (const [path, text] of Object.entries(files)) {
    const committed = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
    assert.ok(committed === text, `${path} is out of date: run npm run sdk and commit it`);
  }
});

test('the SDK grants a credit and registers a payment against a real server', async (t) => {
  const h = await build(t);
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = h.app.server.address() as { port: number };
  const api = createLendingClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: h.tenant.fullKey });

  const plan = await api.createCreditConfig({
    body: { name: 'Monthly 3', installments_count: 3, cut_type: 'monthly', interest_rate: 0.2 },
  });
  assert.equal(plan.response.status, 201, JSON.stringify(plan.error));
  const client = await api.createClient({
    body: { dni: `${Date.now()}`.slice(-8), first_name: 'Ana', last_name: 'García' },
  });
  assert.equal(client.response.status, 201, JSON.stringify(client.error));
  const credit = await api.createCredit({
    params: { path: { clientId: client.data!.id } },
    body: { credit_config_id: plan.data!.id, amount: 100000 },
  });
  assert.equal(credit.response.status, 201, JSON.stringify(credit.error));
  assert.equal(credit.data!.credit.total, 120000);
  assert.equal(credit.data!.installments.length, 3);

  const payment = await api.registerPayment({
    params: { path: { id: credit.data!.credit.id }, header: { 'idempotency-key': randomUUID() } },
    body: { amount: 45000 },
  });
  assert.equal(payment.response.status, 201, JSON.stringify(payment.error));
  assert.equal(payment.data!.balance.paid, 45000);
  assert.equal(payment.data!.balance.outstanding, 75000);

  const read = await api.getClient({ params: { path: { id: client.data!.id } } });
  assert.equal(read.data!.credits[0]!.id, credit.data!.credit.id);
  const ledger = await api.listCreditLedger({ params: { path: { id: credit.data!.credit.id } } });
  // 40,000 to installment 1, the rest to installment 2
  const slices = ledger.data!.filter((e) => e.type === 'payment').map((e) => e.amount);
  assert.deepEqual(slices, [40000, 5000]);

  // a refusal is the Error body, typed, not an exception
  const missing = await api.getClient({ params: { path: { id: randomUUID() } } });
  assert.equal(missing.response.status, 404);
  assert.equal(missing.error?.code, 'not_found');
  const reader = createLendingClient({ baseUrl: `http://127.0.0.1:${port}/`, apiKey: h.tenant.readKey });
  const refused = await reader.createClient({ body: { dni: '1' } });
  assert.equal(refused.response.status, 403);
  assert.equal(refused.error?.code, 'forbidden');
});
