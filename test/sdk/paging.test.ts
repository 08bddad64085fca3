// The SDK's iteration over pages (sdk/pagination.ts) against the real server: a limit/offset list
// walked over several pages, the audit log by next_cursor, the event feed by next_after, and an
// error page ending the walk with a LendingApiError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createLendingClient, LendingApiError, paginate } from '../../sdk/index.ts';
import { build } from '../helpers/app.ts';

async function server(t: Parameters<typeof build>[0]) {
  const h = await build(t);
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = h.app.server.address() as AddressInfo;
  const asked: string[] = [];
  const api = createLendingClient({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: h.tenant.fullKey,
    fetch: (input, init) => {
      const url = new URL((input as Request).url);
      if ((input as Request).method === 'GET') asked.push(url.pathname + url.search);
      return fetch(input, init);
    },
  });
  return { h, api, asked, port };
}

test('for await walks every client over several pages, one request a page', async (t) => {
  const { api, asked } = await server(t);
  const dnis = ['30000001', '30000002', '30000003', '30000004', '30000005'];
  for (const dni of dnis) {
    const r = await api.clients.create({ body: { dni, first_name: `C${dni.slice(-1)}` } });
    assert.equal(r.response.status, 201, JSON.stringify(r.error));
  }
  // awaited, a paged list is the page asked for
  const first = await api.clients.list({ params: { query: { limit: 2 } } });
  assert.deepEqual([first.data!.items.length, first.data!.total, first.data!.offset], [2, 5, 0]);
  asked.length = 0;
  const seen: string[] = [];
  for await (const c of api.clients.list({ params: { query: { limit: 2 } } })) seen.push(c.dni);
  assert.deepEqual(seen.sort(), dnis);
  assert.deepEqual(asked, [
    '/api/clients?limit=2&offset=0',
    '/api/clients?limit=2&offset=2',
    '/api/clients?limit=2&offset=4',
  ]);
  // pages(), and paginate() over the flat operation, from an offset
  const sizes: number[] = [];
  for await (const p of api.clients.list({ params: { query: { limit: 3 } } }).pages()) sizes.push(p.items.length);
  assert.deepEqual(sizes, [3, 2]);
  const rest: string[] = [];
  for await (const c of paginate(api.listClients, 'offset', { params: { query: { limit: 2, offset: 3 } } }))
    rest.push(c.id);
  assert.equal(rest.length, 2);
  // stopping early asks for no more pages
  asked.length = 0;
  for await (const _ of api.clients.list({ params: { query: { limit: 2 } } })) break;
  assert.equal(asked.length, 1);
});

test('the audit log is walked by next_cursor, the event feed by next_after', async (t) => {
  const { api, asked } = await server(t);
  for (const name of ['Norte', 'Sur', 'Este']) {
    assert.equal((await api.branches.create({ body: { name } })).response.status, 201);
  }
  asked.length = 0;
  const entries = [];
  for await (const e of api.auditLog.list({ params: { query: { table_name: 'branches', limit: 2 } } })) entries.push(e);
  assert.equal(entries.length, 3);
  assert.deepEqual(
    entries.map((e) => e.action),
    ['INSERT', 'INSERT', 'INSERT'],
  );
  assert.equal(asked.length, 2);
  assert.equal(asked[0], '/api/logs?table_name=branches&limit=2');
  assert.match(asked[1]!, /^\/api\/logs\?table_name=branches&limit=2&cursor=/);

  asked.length = 0;
  const events = [];
  for await (const e of api.events.list({ params: { query: { types: 'branch.created', limit: 2 } } })) events.push(e);
  assert.deepEqual(
    events.map((e) => e.type),
    ['branch.created', 'branch.created', 'branch.created'],
  );
  const sequences = events.map((e) => e.sequence);
  assert.deepEqual(
    sequences,
    [...sequences].sort((a, b) => a - b),
  );
  assert.equal(asked.length, 2, 'the second page is shorter than the limit: the feed is read to its end');
  assert.equal(asked[1], `/api/events?types=branch.created&limit=2&after=${sequences[1]}`);
});

test('a page answered with an error ends the walk with a LendingApiError', async (t) => {
  const { api } = await server(t);
  await assert.rejects(
    async () => {
      for await (const _ of api.clients.list({ params: { query: { limit: 500 } } })) {
        // never reached
      }
    },
    (e: unknown) => e instanceof LendingApiError && e.status === 400 && e.code === 'validation_failed',
  );
});
