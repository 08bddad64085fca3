// Public routes are limited per client address: the probe guessed upload links
// at 1,300 tries a second. PUBLIC_RATE_LIMIT requests a minute per address, then 429 with
// Retry-After in the Error body; the address is the connection's, or with TRUST_PROXY the one a
// trusted proxy forwarded, never a header anyone can send.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { head, open, responseOf, serve } from '../helpers/server.ts';

const token = (i: number) => `ul_${String(i).padStart(43, 'x')}`;

/** POST /upload/{token} (no such link) from `from` (a 127.x address), with extra headers. */
async function guess(port: number, i: number, from = '127.0.0.1', headers: Record<string, string> = {}) {
  const sock = await open(port, from);
  const out = responseOf(sock);
  sock.write(head('POST', `/upload/${token(i)}`, { 'content-length': 0, connection: 'close', ...headers }));
  return out;
}

test('upload links: PUBLIC_RATE_LIMIT tries a minute per address, then 429 with Retry-After; another address is counted apart', async (t) => {
  const s = await serve(t, { PUBLIC_RATE_LIMIT: '5' });
  for (let i = 0; i < 5; i++) {
    const r = await guess(s.port, i);
    assert.equal(r.status, 404, r.body);
  }
  const over = await guess(s.port, 5);
  assert.equal(over.status, 429, over.body);
  assert.equal(JSON.parse(over.body).code, 'rate_limited');
  assert.ok(
    Number(over.headers['retry-after']) > 0 && Number(over.headers['retry-after']) <= 60,
    over.headers['retry-after'],
  );
  // a real link is refused too while over the limit: the limit is counted before the token is looked up
  const client = await s.call('POST', '/api/clients', { dni: '30111222', first_name: 'A' });
  const link = await s.call('POST', `/api/clients/${client.body.id}/upload-sessions`, {});
  assert.equal(link.status, 201, JSON.stringify(link.body));
  const sock = await open(s.port);
  const real = responseOf(sock);
  sock.write(head('POST', `/upload/${link.body.token}`, { 'content-length': 0, connection: 'close' }));
  assert.equal((await real).status, 429);

  // another address has its own count
  assert.equal((await guess(s.port, 6, '127.0.0.2')).status, 404);
  // a forwarded header is not believed without TRUST_PROXY: it does not reset the count
  assert.equal((await guess(s.port, 7, '127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })).status, 429);
  // the API (its own per-key limit) and the health checks are not limited by address
  assert.equal((await s.call('GET', '/api/clients')).status, 200);
  assert.equal((await fetch(s.url('/healthz'))).status, 200);
});

test('behind a trusted proxy the forwarded client address is counted; a hop not trusted is not believed', async (t) => {
  const s = await serve(t, { PUBLIC_RATE_LIMIT: '2', TRUST_PROXY: '127.0.0.1' });
  const via = (i: number, client: string, from = '127.0.0.1') => guess(s.port, i, from, { 'x-forwarded-for': client });
  assert.equal((await via(0, '198.51.100.1')).status, 404);
  assert.equal((await via(1, '198.51.100.1')).status, 404);
  assert.equal((await via(2, '198.51.100.1')).status, 429, 'the third try of one client through the proxy');
  assert.equal((await via(3, '198.51.100.2')).status, 404, 'another client through the same proxy');
  // 127.0.0.3 is not the trusted proxy: its X-Forwarded-For is ignored, its own address counts
  assert.equal((await via(4, '198.51.100.7', '127.0.0.3')).status, 404);
  assert.equal((await via(5, '198.51.100.8', '127.0.0.3')).status, 404);
  assert.equal((await via(6, '198.51.100.9', '127.0.0.3')).status, 429);
});

test('PUBLIC_RATE_LIMIT=0 turns the limit off; the document declares the 429 either way', async (t) => {
  const s = await serve(t, { PUBLIC_RATE_LIMIT: '0' });
  for (let i = 0; i < 80; i++) assert.equal((await guess(s.port, i)).status, 404);
  const doc = (await (await fetch(s.url('/openapi.json'))).json()) as any;
  assert.ok(doc.paths['/upload/{token}'].post.responses['429'], '429 declared on the public upload');
  assert.ok(!doc.paths['/healthz'].get.responses['429'], 'health checks are not limited');
});

test('PUBLIC_RATE_LIMIT: default 60, an unusable value is a one-line configuration error', () => {
  assert.equal(loadConfig({}).publicRateLimitPerMinute, 60);
  assert.equal(loadConfig({ PUBLIC_RATE_LIMIT: '10' }).publicRateLimitPerMinute, 10);
  for (const bad of ['many', '-1', '1.5', '2000000']) {
    assert.throws(
      () => loadConfig({ PUBLIC_RATE_LIMIT: bad }),
      (e: unknown) => e instanceof ConfigError && /^PUBLIC_RATE_LIMIT=/.test(e.message) && !e.message.includes('\n'),
      bad,
    );
  }
});
