// A body over the limit gets its 413 Error body in an ordinary client: the
// server answers before reading and then discards a bounded amount of the rest, so a client
// still writing is not reset before it reads the answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { head, open, serve, sleep, type Served } from '../helpers/server.ts';

const FIVE_MB = `{"first_name":"${'x'.repeat(5 * 1024 * 1024)}"}`;

test('a 5 MB JSON body gets the 413 Error body in fetch, 30 times out of 30, on any JSON route', {
  timeout: 180_000,
}, async (t) => {
  const s = await serve(t);
  const client = (await s.call('POST', '/api/clients', { dni: '41300001' })).body;
  const plan = (await s.call('POST', '/api/credit-configs', { name: 'plan' })).body;
  const routes: [string, string][] = [
    ['POST', '/api/clients'],
    ['PUT', `/api/clients/${client.id}`],
    ['POST', '/api/credit-configs'],
    ['POST', `/api/credit-configs/${plan.id}/simulate`],
    ['POST', `/api/clients/${client.id}/credits`],
    ['POST', '/api/branches'],
  ];
  const failures: string[] = [];
  for (let i = 0; i < 30; i++) {
    const [method, path] = routes[i % routes.length]!;
    try {
      const res = await fetch(s.url(path), {
        method,
        headers: { authorization: `Bearer ${s.tenant.fullKey}`, 'content-type': 'application/json' },
        body: FIVE_MB,
      });
      const body = (await res.json()) as { code?: string };
      if (res.status !== 413 || body.code !== 'payload_too_large')
        failures.push(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
    } catch (err) {
      failures.push(`${method} ${path}: ${String((err as Error).cause ?? err)}`);
    }
  }
  assert.deepEqual(failures, [], `${failures.length} of 30 tries did not read the 413`);
  // the server is fine afterwards, on the same kept-alive connections
  assert.equal((await s.call('GET', '/api/clients')).status, 200);
});

/** The body in 64 KiB chunks with a pause between them, as a client on a real network sends it. */
async function* trickle(data: Buffer) {
  for (let i = 0; i < data.length; i += 64 * 1024) {
    yield data.subarray(i, i + 64 * 1024);
    await sleep(1);
  }
}

/** Sends `total` bytes of body after the head, as fast as the server takes them: what was sent and how the connection ended. */
async function sendBody(s: Served, total: number) {
  const socket = await open(s.port);
  let answer = '';
  let error: string | null = null;
  let closed = false;
  socket.on('data', (d) => (answer += d.toString('latin1')));
  socket.on('error', (e) => (error = (e as NodeJS.ErrnoException).code ?? String(e)));
  socket.on('close', () => (closed = true));
  socket.write(
    head('POST', '/api/clients', {
      Authorization: `Bearer ${s.tenant.fullKey}`,
      'Content-Type': 'application/json',
      'Content-Length': total,
    }),
  );
  const chunk = Buffer.alloc(64 * 1024, 0x78);
  let sent = 0;
  while (sent < total && !error && !closed) {
    const n = Math.min(chunk.length, total - sent);
    sent += n;
    if (!socket.write(chunk.subarray(0, n)))
      await Promise.race([new Promise((r) => socket.once('drain', r)), sleep(1000)]);
  }
  await sleep(300);
  socket.destroy();
  return { sent, error, closed, answer };
}

test('after the 413, a client still writing its 5 MB body finishes without a reset; a body past the drain cap is cut', {
  timeout: 120_000,
}, async (t) => {
  const s = await serve(t);
  for (let i = 0; i < 3; i++) {
    const r = await sendBody(s, 5 * 1024 * 1024);
    assert.match(r.answer, /^HTTP\/1\.1 413 /, r.answer.slice(0, 100));
    assert.match(r.answer, /"code":"payload_too_large"/);
    assert.deepEqual(
      { error: r.error, closed: r.closed, sent: r.sent },
      { error: null, closed: false, sent: 5 * 1024 * 1024 },
      'the whole body went out, nothing reset',
    );
  }
  // the rest is discarded up to a bound: a client that keeps sending is cut off
  const huge = await sendBody(s, 200 * 1024 * 1024);
  assert.match(huge.answer, /^HTTP\/1\.1 413 /);
  assert.ok(huge.sent < 200 * 1024 * 1024, `cut after ${huge.sent} bytes`);
});

test('a 5 MB JSON body sent chunked (no Content-Length) gets the 413 Error body too', {
  timeout: 120_000,
}, async (t) => {
  const s = await serve(t);
  const failures: string[] = [];
  for (let i = 0; i < 10; i++) {
    try {
      const body = Readable.toWeb(Readable.from(trickle(Buffer.from(FIVE_MB)))) as ReadableStream;
      const res = await fetch(s.url('/api/clients'), {
        method: 'POST',
        headers: { authorization: `Bearer ${s.tenant.fullKey}`, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      const b = (await res.json()) as { code?: string };
      if (res.status !== 413 || b.code !== 'payload_too_large') failures.push(`${res.status} ${JSON.stringify(b)}`);
    } catch (err) {
      failures.push(String((err as Error).cause ?? err));
    }
  }
  assert.deepEqual(failures, []);
});

test('a 5 MB body refused before it is read (no key, a read key) gets its Error body in fetch', {
  timeout: 120_000,
}, async (t) => {
  const s = await serve(t);
  const failures: string[] = [];
  for (let i = 0; i < 10; i++) {
    const key = i % 2 ? s.tenant.readKey : null;
    try {
      const res = await fetch(s.url('/api/clients'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: FIVE_MB,
      });
      const b = (await res.json()) as { code?: string };
      const expected = key ? 'forbidden' : 'unauthorized';
      if (b.code !== expected) failures.push(`${res.status} ${JSON.stringify(b)}`);
    } catch (err) {
      failures.push(String((err as Error).cause ?? err));
    }
  }
  assert.deepEqual(failures, []);
});
