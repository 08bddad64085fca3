// Request ids on every response, in error bodies and log lines; log lines that
// are one JSON object with unique keys and no secret; the Prometheus metrics on their own port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { build, json } from '../helpers/app.ts';
import { capturedLogger, serve } from '../helpers/server.ts';
import { fileForm, pdf } from '../helpers/file-fixtures.ts';
import { Metrics, startMetricsServer } from '../../src/metrics.ts';
import { JOBS, startJob } from '../../src/jobs/index.ts';
import { DirectoryStorage } from '../../src/storage/directory.ts';
import { systemClock } from '../../src/domain/index.ts';

test('X-Request-Id: the caller’s own when it is a plain token, else a new one; error bodies quote it', async (t) => {
  const h = await build(t);
  const ok = await h.get('/api/clients', undefined);
  assert.equal(ok.statusCode, 200);
  assert.match(String(ok.headers['x-request-id']), /^[0-9a-f-]{36}$/);

  const mine = await h.req({ method: 'GET', url: '/api/clients', headers: { 'x-request-id': 'trace-1.A_b' } });
  assert.equal(mine.headers['x-request-id'], 'trace-1.A_b');

  for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', '']) {
    const res = await h.req({ method: 'GET', url: '/healthz', headers: { 'x-request-id': bad } });
    assert.notEqual(res.headers['x-request-id'], bad);
    assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/, `replaced: ${bad.slice(0, 20)}`);
  }

  // every kind of error: refused key, unknown route, bad input, the router's own refusal
  const errors = [
    await h.req({ method: 'GET', url: '/api/clients', key: null, headers: { 'x-request-id': 'r-401' } }),
    await h.req({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'r-404' } }),
    await h.req({ method: 'GET', url: '/api/clients?limit=1000', headers: { 'x-request-id': 'r-400' } }),
    await h.req({ method: 'POST', url: '/api/clients', payload: '{', headers: { 'content-type': 'application/json' } }),
    await h.req({ method: 'GET', url: '/api/clients/%zz' }),
  ];
  for (const res of errors) {
    assert.ok(res.statusCode >= 400, res.body);
    const id = res.headers['x-request-id'];
    assert.ok(id, `X-Request-Id on ${res.statusCode}`);
    assert.equal(json(res).request_id, id, `the body quotes the header on ${res.statusCode}`);
    assert.equal(typeof json(res).code, 'string');
  }
  assert.deepEqual(
    errors.slice(0, 3).map((r) => json(r).request_id),
    ['r-401', 'r-404', 'r-400'],
  );
});

test('a request node’s parser refuses still gets an id in its header and body', async (t) => {
  const s = await serve(t);
  const socket = connect(s.port, '127.0.0.1');
  const text = await new Promise<string>((resolve) => {
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    socket.on('close', () => resolve(data));
    socket.write('BREW / HTTP/1.1\r\nHost: x\r\n\r\n');
  });
  const id = /x-request-id: (\S+)/i.exec(text)?.[1];
  assert.ok(id, text);
  assert.match(text, new RegExp(`"request_id":"${id}"`));
});

test('log lines: unique keys, the request id on each request’s lines, the access line says who and which route; no key, token or personal query value', {
  timeout: 60_000,
}, async (t) => {
  const log = capturedLogger('debug');
  const s = await serve(t, {}, log.logger);
  const dni = '30111222';
  const email = 'ana.perez@example.com';
  const client = (await s.call('POST', '/api/clients', { dni, first_name: 'Ana' })).body;
  const link = (await s.call('POST', `/api/clients/${client.id}/upload-sessions`, {})).body;
  const token: string = link.token;
  const auth = { authorization: `Bearer ${s.tenant.fullKey}` };
  await fetch(s.url(`/api/clients?q=${dni}&limit=5`), { headers: { ...auth, 'x-request-id': 'search-1' } });
  await fetch(s.url(`/api/clients?email=${encodeURIComponent(email)}&dni=${dni}`), { headers: auth });
  await fetch(s.url('/api/clients'), { headers: { authorization: 'Bearer lk_full_not-a-real-key' } });
  await s.call('POST', '/api/clients', { dni }); // 409: a refused request
  const form = fileForm('dni.pdf', pdf());
  const up = await fetch(s.url(`/upload/${token}`), {
    method: 'POST',
    headers: { 'content-type': form.contentType },
    body: form.payload,
  });
  assert.equal(up.status, 201);
  await new Promise((r) => setTimeout(r, 100));

  assert.ok(log.raw.length > 8, 'the requests were logged');
  for (const line of log.raw) {
    // a key written twice is lost by JSON.parse (the last one wins): the line written again from
    // its parse is then shorter than the line
    assert.equal(JSON.stringify(JSON.parse(line)).length, line.length, `a key written twice: ${line}`);
  }
  for (const secret of [s.tenant.fullKey, s.tenant.readKey, token, dni, email, 'lk_full_not-a-real-key']) {
    const leaks = log.raw.filter((l) => l.includes(secret) || l.includes(encodeURIComponent(secret)));
    assert.deepEqual(leaks, [], `${secret.slice(0, 12)}… is in ${leaks.length} log lines`);
  }
  const access = log.lines.filter((l) => l.msg === 'request completed');
  assert.ok(access.length >= 6, 'holds: access.length >= 6');
  for (const l of access) {
    assert.equal(typeof l.request_id, 'string', JSON.stringify(l));
    assert.equal(typeof l.status, 'number');
    assert.equal(typeof l.ms, 'number');
  }
  // every line written during a request carries its id (the refusal's line and the access line)
  const refused = log.lines.find((l) => l.msg === 'request refused');
  assert.ok(
    refused && typeof refused.request_id === 'string',
    "holds: refused && typeof refused.request_id === 'string'",
  );
  const search = access.find((l) => l.request_id === 'search-1') as Record<string, any>;
  assert.ok(search, 'the caller’s id is the log’s');
  assert.equal(search.business_id, s.tenant.businessId);
  assert.ok(search.key_id, 'the key id (not the key)');
  assert.equal(search.req.route, '/api/clients');
  assert.equal(search.req.url, '/api/clients?q=[redacted]&limit=5', 'a search term is redacted, the page size kept');
  const urls = access.map((l) => (l.req as { url: string }).url);
  assert.ok(urls.includes('/api/clients?email=[redacted]&dni=[redacted]'), urls.join(' '));
  assert.ok(urls.includes('/upload/[token]'), urls.join(' '));
});

test('metrics on their own port: requests by route, method and status; the pool; jobs; event loop and memory', {
  timeout: 60_000,
}, async (t) => {
  const h = await build(t);
  // two registries and listeners side by side (port 0): servers in one process do not clash
  const metrics = new Metrics({ pool: () => h.db.poolStats() });
  const other = new Metrics();
  const servers = [await startMetricsServer(metrics, 0, '127.0.0.1'), await startMetricsServer(other, 0, '127.0.0.1')];
  t.after(() => servers.forEach((s) => s.close()));
  const [url, otherUrl] = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);

  // the app of build() has no registry: count the requests with one built the same way
  const { buildApp } = await import('../../src/http/app.ts');
  const app = await buildApp({ db: h.db, config: h.config, storage: new DirectoryStorage(h.config.filesDir), metrics });
  t.after(() => app.close());
  const auth = { authorization: `Bearer ${h.tenant.fullKey}` };
  for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: '/api/clients', headers: auth });
  await app.inject({ method: 'GET', url: '/api/clients/00000000-0000-4000-8000-000000000000', headers: auth });
  await app.inject({ method: 'GET', url: '/no/such/path' });

  // a job run: the file sweep runs once at start. Only it: on the real clock the other jobs would
  // sweep the sessions and pay the imports of tests whose clock is in the past (one shared database)
  const stop = startJob(JOBS.find((j) => j.name === 'file_sweep')!, {
    db: h.db,
    config: h.config,
    storage: new DirectoryStorage(h.config.filesDir),
    log: app.log,
    clock: systemClock,
    metrics,
  });
  t.after(stop);
  let text = '';
  for (let i = 0; i < 100 && !/lending_job_last_success_timestamp_seconds\{job="file_sweep"\}/.test(text); i++) {
    await new Promise((r) => setTimeout(r, 50));
    text = await (await fetch(`${url}/metrics`)).text();
  }
  const res = await fetch(`${url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(String(res.headers.get('content-type')), /text\/plain/);
  text = await res.text();
  assert.match(
    text,
    /lending_http_request_duration_seconds_count\{route="\/api\/clients",method="GET",status="200"\} 3/,
  );
  assert.match(
    text,
    /lending_http_request_duration_seconds_count\{route="\/api\/clients\/:id",method="GET",status="404"\} 1/,
  );
  assert.match(
    text,
    /lending_http_request_duration_seconds_count\{route="\(unmatched\)",method="GET",status="404"\} 1/,
  );
  assert.match(text, /lending_db_pool_connections\{state="total"\} \d+/);
  assert.match(text, /lending_db_pool_connections\{state="waiting"\} \d+/);
  assert.match(text, /lending_job_duration_seconds_count\{job="file_sweep",outcome="ok"\} 1/);
  assert.match(text, /lending_job_last_success_timestamp_seconds\{job="file_sweep"\} \d/);
  assert.match(text, /nodejs_eventloop_lag_seconds \d/);
  assert.match(text, /process_resident_memory_bytes \d/);
  // the other registry counted none of it; anything but GET /metrics is 404
  assert.doesNotMatch(await (await fetch(`${otherUrl}/metrics`)).text(), /route="\/api\/clients"/);
  assert.equal((await fetch(`${url}/`)).status, 404);
  assert.equal((await fetch(`${url}/metrics`, { method: 'POST' })).status, 404);
  // and the metrics are not on the API's port
  assert.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
});
