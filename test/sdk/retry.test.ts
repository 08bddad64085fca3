// The SDK's retries (sdk/retry.ts, docs/sdk.md): 429 with Retry-After and 5xx retried with backoff,
// a failed connection retried for a repeatable request, a POST's automatic Idempotency-Key the same
// on every attempt, so a payment whose first answer was lost is made once on the real server.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLendingClient, retryAfterMs } from '../../sdk/index.ts';
import { build } from '../helpers/app.ts';

interface Seen {
  method: string;
  url: string;
  key: string | undefined;
  at: number;
}

/** A local server that answers the n-th request (0-based) as `answer` says; 'drop' closes the socket. */
async function scripted(t: TestContext, answer: (n: number, req: IncomingMessage, res: ServerResponse) => unknown) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const n = seen.length;
      seen.push({ method: req.method!, url: req.url!, key: req.headers['idempotency-key'] as string, at: Date.now() });
      if (answer(n, req, res) === 'drop') req.socket.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const { port } = server.address() as AddressInfo;
  const api = createLendingClient({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: 'lk_test',
    retry: { minDelayMs: 10, maxDelayMs: 50 },
  });
  return { api, seen };
}

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

test('a 429 is retried after its Retry-After, then the 200 is the answer', async (t) => {
  const { api, seen } = await scripted(t, (n, _req, res) =>
    n === 0
      ? send(res, 429, { error: 'slow down', code: 'rate_limited' }, { 'retry-after': '1' })
      : send(res, 200, { items: [], total: 0, limit: 50, offset: 0 }),
  );
  const r = await api.clients.list();
  assert.equal(r.response.status, 200);
  assert.deepEqual(r.data, { items: [], total: 0, limit: 50, offset: 0 });
  assert.equal(seen.length, 2);
  assert.ok(seen[1]!.at - seen[0]!.at >= 950, `waited ${seen[1]!.at - seen[0]!.at} ms for Retry-After: 1`);
});

test('a 503 is retried with backoff; a POST keeps its Idempotency-Key on every attempt', async (t) => {
  const { api, seen } = await scripted(t, (n, _req, res) =>
    n < 2 ? send(res, 503, { error: 'unavailable', code: 'unavailable' }) : send(res, 201, { id: 'c1' }),
  );
  const r = await api.clients.create({ body: { dni: '30123456', first_name: 'Ana' } });
  assert.equal(r.response.status, 201);
  assert.equal(seen.length, 3);
  assert.match(seen[0]!.key!, /^[0-9a-f-]{36}$/);
  assert.deepEqual(
    seen.map((s) => s.key),
    [seen[0]!.key, seen[0]!.key, seen[0]!.key],
  );
  // a second call is another operation: another key
  await api.clients.create({ body: { dni: '30123457', first_name: 'Eva' } });
  assert.notEqual(seen[3]!.key, seen[0]!.key);
  // a key given with the call is the one sent
  await api.createClient({ body: { dni: '1' }, headers: { 'Idempotency-Key': 'erp-client-1' } });
  assert.equal(seen.at(-1)!.key, 'erp-client-1');
});

test('retries stop after `retries`; a 4xx, a 501 and a POST outside /api are not retried', async (t) => {
  const { api, seen } = await scripted(t, (_n, req, res) => {
    if (req.url!.startsWith('/api/clients?')) return send(res, 500, { error: 'boom', code: 'internal' });
    if (req.url === '/api/branches') return send(res, 501, { error: 'no', code: 'internal' });
    if (req.url === '/auth/login') return send(res, 503, { error: 'busy', code: 'unavailable' });
    return send(res, 404, { error: 'not found', code: 'not_found' });
  });
  const failed = await api.listClients({ params: { query: { limit: 1 } } });
  assert.equal(failed.response.status, 500);
  assert.equal(failed.error?.code, 'internal');
  assert.equal(seen.length, 4, 'the first attempt and 3 retries');
  seen.length = 0;
  assert.equal((await api.getClient({ params: { path: { id: crypto.randomUUID() } } })).response.status, 404);
  assert.equal((await api.listBranches()).response.status, 501);
  assert.equal((await api.signIn({ body: { email: 'a@b.c', password: 'x' } })).response.status, 503);
  assert.equal(seen.length, 3);
});

test('a dropped connection is retried for a GET; a Retry-After longer than allowed is answered at once', async (t) => {
  const { api, seen } = await scripted(t, (n, req, res) => {
    if (req.url!.startsWith('/api/credits'))
      return n === 0 ? 'drop' : send(res, 200, { items: [], total: 0, limit: 50, offset: 0 });
    return send(res, 429, { error: 'later', code: 'rate_limited' }, { 'retry-after': '3600' });
  });
  assert.equal((await api.credits.list()).response.status, 200);
  assert.equal(seen.length, 2);
  const later = await api.branches.list();
  assert.equal(later.response.status, 429);
  assert.equal(later.response.headers.get('retry-after'), '3600');
  assert.equal(seen.length, 3);
  assert.equal(retryAfterMs('2'), 2000);
  assert.equal(retryAfterMs(new Date(Date.UTC(2026, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2026, 0, 1)), 10000);
  assert.equal(retryAfterMs('soon'), null);
});

test('a payment whose answer was lost is retried under the same key and made once', async (t) => {
  const h = await build(t);
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = h.app.server.address() as AddressInfo;
  const keys: string[] = [];
  let lost = 0;
  // the first answer to a payment is lost on the way back (a proxy answers 502 instead)
  const lossy: typeof fetch = async (input, init) => {
    const request = input as Request;
    const response = await fetch(request, init);
    if (request.method === 'POST' && request.url.endsWith('/payments')) {
      keys.push(request.headers.get('idempotency-key')!);
      if (lost++ === 0) return new Response('bad gateway', { status: 502 });
    }
    return response;
  };
  const api = createLendingClient({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: h.tenant.fullKey,
    fetch: lossy,
    retry: { minDelayMs: 10 },
  });
  const plan = await api.creditConfigs.create({
    body: { name: 'Monthly 3', installments_count: 3, cut_type: 'monthly', interest_rate: 0.2 },
  });
  const client = await api.clients.create({ body: { dni: '30123456', first_name: 'Ana' } });
  const credit = await api.clients.createCredit({
    params: { path: { clientId: client.data!.id } },
    body: { credit_config_id: plan.data!.id, amount: 100000 },
  });
  assert.equal(credit.response.status, 201, JSON.stringify(credit.error));
  const id = credit.data!.credit.id;

  const paid = await api.credits.registerPayment({ params: { path: { id } }, body: { amount: 45000 } });
  assert.equal(paid.response.status, 201, JSON.stringify(paid.error));
  assert.equal(paid.response.headers.get('idempotent-replayed'), 'true');
  assert.equal(keys.length, 2);
  assert.equal(keys[0], keys[1]);
  assert.equal(paid.data!.balance.paid, 45000);
  const payments = await api.credits.listPayments({ params: { path: { id } } });
  assert.equal(payments.response.status, 200);
  const ledger = await api.credits.listLedger({ params: { path: { id } } });
  // one payment of 45,000: 40,000 to installment 1, 5,000 to installment 2
  assert.deepEqual(
    ledger.data!.filter((e) => e.type === 'payment').map((e) => e.amount),
    [40000, 5000],
  );
});
