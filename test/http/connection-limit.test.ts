// A cap on concurrent connections, per address and overall: a connection over
// a cap is answered 503 with the Error body and closed, never reset or left hanging, and the
// server serves again as soon as connections close.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { head, open, responseOf, serve, sleep } from '../helpers/server.ts';

/** GET /healthz on a new connection from `from`: the raw answer. */
async function healthz(port: number, from?: string) {
  const socket = await open(port, from);
  const res = responseOf(socket, 10_000);
  socket.write(head('GET', '/healthz', { Connection: 'close' }));
  return res;
}

async function eventually(port: number, from?: string) {
  for (let i = 0; i < 50; i++) {
    const r = await healthz(port, from);
    if (r.status === 200) return r;
    await sleep(100);
  }
  assert.fail('the server never served again');
}

function assertRefused(r: Awaited<ReturnType<typeof healthz>>, what: string) {
  assert.equal(r.status, 503, `${what}: ${r.status} ${r.body}`);
  assert.equal(JSON.parse(r.body).code, 'unavailable', what);
  assert.equal(r.headers.connection, 'close', what);
  assert.ok(Number(r.headers['retry-after']) >= 1, what);
}

test('over the cap per address, a connection is answered 503 and closed; other addresses are served', {
  timeout: 60_000,
}, async (t) => {
  const s = await serve(t, { MAX_CONNECTIONS_PER_IP: '3', MAX_CONNECTIONS: '10' });
  const held: Socket[] = await Promise.all([1, 2, 3].map(() => open(s.port)));
  assertRefused(await healthz(s.port), 'a 4th connection from 127.0.0.1');
  // fetch as an ordinary client meets the same clear answer, not a reset
  const res = await fetch(s.url('/healthz'));
  assert.equal(res.status, 503);
  assert.equal(((await res.json()) as { code: string }).code, 'unavailable');
  assert.equal((await healthz(s.port, '127.0.0.2')).status, 200, 'another address is served');
  for (const h of held) h.destroy();
  await eventually(s.port);
});

test('over the overall cap, a connection from any address is answered 503 and closed', {
  timeout: 60_000,
}, async (t) => {
  const s = await serve(t, { MAX_CONNECTIONS_PER_IP: '0', MAX_CONNECTIONS: '3' });
  const held: Socket[] = await Promise.all(['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((a) => open(s.port, a)));
  assertRefused(await healthz(s.port, '127.0.0.5'), 'a 4th connection');
  for (const h of held) h.destroy();
  await eventually(s.port, '127.0.0.5');
});

test('a flood of silent connections is bounded: every request is answered, and the silent ones are closed', {
  timeout: 60_000,
}, async (t) => {
  const s = await serve(t, { MAX_CONNECTIONS_PER_IP: '20', MAX_CONNECTIONS: '40', CONNECTION_TIMEOUT: '2' });
  const flood: Socket[] = await Promise.all(Array.from({ length: 60 }, () => open(s.port)));
  const closed = flood.map((f) => responseOf(f, 20_000));
  // while they hold their slots, requests get an answer (503 from the flooding address, 200 from another)
  const answers = await Promise.all(Array.from({ length: 10 }, () => healthz(s.port)));
  for (const a of answers) assertRefused(a, 'during the flood');
  assert.equal((await healthz(s.port, '127.0.0.9')).status, 200);
  for (const c of await Promise.all(closed)) assert.ok(c.ms < 10_000, `a silent connection closed after ${c.ms} ms`);
  await eventually(s.port);
});

test('the caps are configured with defaults; 0 is no cap', () => {
  const c = loadConfig({});
  assert.deepEqual([c.maxConnections, c.maxConnectionsPerIp], [512, 128]);
  const off = loadConfig({ MAX_CONNECTIONS: '0', MAX_CONNECTIONS_PER_IP: '0' });
  assert.deepEqual([off.maxConnections, off.maxConnectionsPerIp], [0, 0]);
  assert.throws(() => loadConfig({ MAX_CONNECTIONS: 'many' }), ConfigError);
  assert.throws(() => loadConfig({ MAX_CONNECTIONS_PER_IP: '-1' }), ConfigError);
});
