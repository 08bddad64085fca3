// The SDK's read-your-writes (sdk/consistency.ts, docs/sdk.md): the furthest Consistency-Token a
// write's answer carried goes with every later request, unless the call names its own or the
// client is made with readYourWrites: false. The server's side is test/db/replica.test.ts.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLendingClient } from '../../sdk/index.ts';

/** A local server answering each request with the n-th token of `tokens` (none past the end), recording the token it was sent. */
async function server(t: TestContext, tokens: string[]) {
  const sent: (string | undefined)[] = [];
  const s = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const n = sent.length;
      sent.push(req.headers['consistency-token'] as string | undefined);
      const token = tokens[n];
      res
        .writeHead(200, { 'content-type': 'application/json', ...(token ? { 'consistency-token': token } : {}) })
        .end(JSON.stringify({ items: [], total: 0, limit: 50, offset: 0, id: 'x' }));
    });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => s.close(r)));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, sent };
}

test('the furthest token answered goes with every later request', async (t) => {
  // two writes answered out of order (the second one's position is earlier), then reads
  const { url, sent } = await server(t, ['', '1/A0', '0/FFFFFFFF', '', '']);
  const api = createLendingClient({ baseUrl: url, apiKey: 'lk_test' });
  await api.clients.list();
  await api.clients.create({ body: { dni: '30111222', first_name: 'A' } });
  await api.clients.create({ body: { dni: '30111223', first_name: 'B' } });
  await api.clients.list();
  // a call that names its own token keeps it
  await api.clients.list({ params: { header: { 'Consistency-Token': '0/1' } } } as never);
  assert.deepEqual(sent, [undefined, undefined, '1/A0', '1/A0', '0/1']);
});

test('readYourWrites: false sends no token', async (t) => {
  const { url, sent } = await server(t, ['5/5']);
  const api = createLendingClient({ baseUrl: url, apiKey: 'lk_test', readYourWrites: false });
  await api.clients.create({ body: { dni: '30111222', first_name: 'A' } });
  await api.clients.list();
  assert.deepEqual(sent, [undefined, undefined]);
});
