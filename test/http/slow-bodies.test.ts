// Slow and broken clients hold nothing for long: a multipart body cut short
// is answered within seconds and stores nothing, a body or head trickled byte by byte is cut by
// the request and headers timeouts, and a silent connection is closed. Each answer is the Error
// body, and the server serves others meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { bigPdf } from '../helpers/file-fixtures.ts';
import { storedFiles } from '../helpers/files.ts';
import {
  capturedLogger,
  head,
  open,
  responseOf,
  serve,
  sleep,
  type RawResponse,
  type Served,
} from '../helpers/server.ts';

const BOUNDARY = 'hardening-boundary';
const FAST = { CONNECTION_TIMEOUT: '1', REQUEST_TIMEOUT: '3', HEADERS_TIMEOUT: '2' };

/** A multipart upload whose part is opened and never closed: the head, the part's head and `bytes` of a PDF. */
async function truncatedUpload(s: Served, path: string, bytes: number, auth = true): Promise<RawResponse> {
  const socket = await open(s.port);
  const res = responseOf(socket);
  const headers = {
    ...(auth ? { Authorization: `Bearer ${s.tenant.fullKey}` } : {}),
    'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
    'Content-Length': 1_000_000,
  };
  socket.write(head('POST', path, headers));
  socket.write(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  socket.write(bigPdf(bytes * 2).subarray(0, bytes));
  return res;
}

function assertErrorBody(r: RawResponse, statuses: number[], what: string) {
  assert.ok(statuses.includes(r.status), `${what}: status ${r.status} (${r.ms} ms) ${r.body.slice(0, 200)}`);
  const b = JSON.parse(r.body);
  assert.equal(typeof b.error, 'string', what);
  assert.equal(typeof b.code, 'string', what);
}

async function newClient(s: Served) {
  const c = await s.call('POST', '/api/clients', { dni: `slow-${Math.random().toString(36).slice(2, 10)}` });
  assert.equal(c.status, 201);
  return c.body as { id: string };
}

test('a multipart upload cut short is answered 400/408 within seconds and stores nothing (API key and upload link)', {
  timeout: 60_000,
}, async (t) => {
  const log = capturedLogger('warn');
  const s = await serve(t, FAST, log.logger);
  const client = await newClient(s);
  const link = (await s.call('POST', `/api/clients/${client.id}/upload-sessions`, {})).body;
  // a part that never starts its bytes, and one cut after 20 kB (the bytes were streaming to FILES_DIR)
  for (const bytes of [0, 20_000]) {
    const byKey = await truncatedUpload(s, `/api/clients/${client.id}/files`, bytes);
    assertErrorBody(byKey, [400, 408], `API key upload cut after ${bytes} bytes`);
    assert.ok(byKey.ms < 5000, `answered in ${byKey.ms} ms`);
    const byLink = await truncatedUpload(s, `/upload/${link.token}`, bytes, false);
    assertErrorBody(byLink, [400, 408], `link upload cut after ${bytes} bytes`);
    assert.ok(byLink.ms < 5000, `answered in ${byLink.ms} ms`);
  }
  assert.deepEqual((await s.call('GET', `/api/clients/${client.id}/files`)).body, [], 'no row');
  assert.deepEqual(storedFiles(s.config.filesDir), [], 'no bytes, not even a temporary file');
  const sessions = (await s.call('GET', `/api/clients/${client.id}/upload-sessions`)).body;
  assert.equal(sessions[0].upload_count, 0, 'the link took no file');
  // a client that stalls is not a failure of the server
  assert.deepEqual(
    log.lines.filter((l) => Number(l.level) >= 40),
    [],
  );
});

test('a JSON body trickled one byte at a time is cut by the request timeout with a 408', {
  timeout: 60_000,
}, async (t) => {
  const s = await serve(t, FAST);
  const socket = await open(s.port);
  const res = responseOf(socket);
  socket.write(
    head('POST', '/api/clients', {
      Authorization: `Bearer ${s.tenant.fullKey}`,
      'Content-Type': 'application/json',
      'Content-Length': 100_000,
    }),
  );
  const body = `{"dni":"${'1'.repeat(99_990)}"}`;
  let closed = false;
  socket.on('close', () => (closed = true));
  for (let i = 0; i < 40 && !closed; i++) {
    socket.write(body[i]!);
    await sleep(400); // never silent for the connection timeout (1 s)
  }
  const r = await res;
  assertErrorBody(r, [408], 'trickled JSON body');
  assert.equal(JSON.parse(r.body).code, 'request_timeout');
  assert.ok(r.ms < 6000, `cut after ${r.ms} ms (REQUEST_TIMEOUT=3)`);
});

test('a multipart body trickled one byte at a time is cut by the request timeout and stores nothing', {
  timeout: 60_000,
}, async (t) => {
  const s = await serve(t, FAST);
  const client = await newClient(s);
  const socket = await open(s.port);
  const res = responseOf(socket);
  socket.write(
    head('POST', `/api/clients/${client.id}/files`, {
      Authorization: `Bearer ${s.tenant.fullKey}`,
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length': 100_000,
    }),
  );
  socket.write(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const pdf = bigPdf(10_000);
  let closed = false;
  socket.on('close', () => (closed = true));
  for (let i = 0; i < 40 && !closed; i++) {
    socket.write(pdf.subarray(i, i + 1));
    await sleep(400);
  }
  const r = await res;
  assertErrorBody(r, [400, 408], 'trickled multipart body');
  assert.ok(r.ms < 6000, `cut after ${r.ms} ms`);
  assert.deepEqual((await s.call('GET', `/api/clients/${client.id}/files`)).body, []);
  assert.deepEqual(storedFiles(s.config.filesDir), []);
});

test('request headers trickled one byte at a time are cut by the headers timeout with a 408', {
  timeout: 60_000,
}, async (t) => {
  const s = await serve(t, FAST);
  const socket = await open(s.port);
  const res = responseOf(socket);
  socket.write('GET /api/clients HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  const filler = `X-Slow: ${'a'.repeat(100)}`;
  let closed = false;
  socket.on('close', () => (closed = true));
  for (let i = 0; i < 40 && !closed; i++) {
    socket.write(filler[i]!);
    await sleep(400);
  }
  const r = await res;
  assertErrorBody(r, [408], 'trickled head');
  assert.ok(r.ms < 5000, `cut after ${r.ms} ms (HEADERS_TIMEOUT=2)`);
});

test('a connection that sends nothing is closed after the connection timeout; others are served meanwhile', {
  timeout: 60_000,
}, async (t) => {
  const s = await serve(t, FAST);
  const silent: Socket[] = await Promise.all(Array.from({ length: 5 }, () => open(s.port)));
  const ends = silent.map((sock) => responseOf(sock));
  assert.equal((await fetch(s.url('/healthz'))).status, 200);
  for (const r of await Promise.all(ends)) assert.ok(r.ms < 4000, `closed after ${r.ms} ms`);
});

test('a stalled JSON body is answered 408 and the connection closed', { timeout: 60_000 }, async (t) => {
  const s = await serve(t, FAST);
  const socket = await open(s.port);
  const res = responseOf(socket);
  socket.write(
    head('POST', '/api/clients', {
      Authorization: `Bearer ${s.tenant.fullKey}`,
      'Content-Type': 'application/json',
      'Content-Length': 100,
    }),
  );
  socket.write('{"dni":');
  const r = await res;
  assertErrorBody(r, [408], 'stalled JSON body');
  assert.equal(r.headers.connection, 'close');
  assert.ok(r.ms < 4000, `answered in ${r.ms} ms`);
});

test('the timeouts are configured in seconds, with defaults, and refused when unusable', () => {
  const c = loadConfig({});
  assert.deepEqual(
    {
      connection: c.connectionTimeout,
      request: c.requestTimeout,
      headers: c.headersTimeout,
      keepAlive: c.keepAliveTimeout,
    },
    { connection: 30, request: 120, headers: 20, keepAlive: 72 },
  );
  const fast = loadConfig(FAST);
  assert.deepEqual([fast.connectionTimeout, fast.requestTimeout, fast.headersTimeout], [1, 3, 2]);
  // the headers are part of the request: their default never exceeds the request timeout
  assert.equal(loadConfig({ REQUEST_TIMEOUT: '5' }).headersTimeout, 5);
  assert.throws(() => loadConfig({ REQUEST_TIMEOUT: '5', HEADERS_TIMEOUT: '10' }), ConfigError);
  for (const name of ['CONNECTION_TIMEOUT', 'REQUEST_TIMEOUT', 'HEADERS_TIMEOUT', 'KEEP_ALIVE_TIMEOUT']) {
    assert.throws(() => loadConfig({ [name]: '0' }), ConfigError, name);
    assert.throws(() => loadConfig({ [name]: 'soon' }), ConfigError, name);
  }
});
