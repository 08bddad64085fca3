// Webhook endpoints (docs/webhooks.md, "Endpoints"): created with a secret shown once (never in a
// read, an audit row or a log line), listed, read, changed, disabled and enabled, deleted; bad
// bodies are 400 and another business's endpoints 404.
import { EVENT_TYPES } from '../../../../src/services/events.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { build, json } from '../../../helpers/app.ts';
import { capturedLogger, serve } from '../../../helpers/server.ts';
import { createEndpoint, deliveries, receiver, runAt, announce } from '../../../helpers/webhooks.ts';
import { deliverDue, dispatch } from '../../../../src/services/webhooks.ts';
import { sharedTestDb } from '../../../helpers/db.ts';

const PRIVATE = { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '60000' } };
const FIELDS = [
  'business_id',
  'created_at',
  'description',
  'disabled_at',
  'disabled_reason',
  'enabled',
  'events',
  'id',
  'updated_at',
  'url',
];

test('an endpoint is created with its secret once; reads, lists and the audit log never show it', async (t) => {
  const h = await build(t, PRIVATE);
  const r = await receiver(t);
  const res = await h.post('/api/webhook-endpoints', {
    url: r.url,
    events: ['payment.created', 'client.created', 'payment.created'],
    description: '  ERP  ',
  });
  assert.equal(res.statusCode, 201, res.body);
  const { endpoint, secret } = json(res);
  assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(Object.keys(endpoint).sort(), FIELDS);
  assert.equal(endpoint.url, r.url);
  assert.deepEqual(endpoint.events, ['payment.created', 'client.created'], 'each type once');
  assert.equal(endpoint.description, 'ERP');
  assert.equal(endpoint.enabled, true);
  assert.equal(endpoint.disabled_at, null);
  assert.equal(endpoint.business_id, h.tenant.businessId);

  const one = await h.get(`/api/webhook-endpoints/${endpoint.id}`, h.tenant.readKey);
  assert.equal(one.statusCode, 200);
  assert.deepEqual(json(one), endpoint);
  const list = await h.get('/api/webhook-endpoints', h.tenant.readKey);
  assert.deepEqual(json(list), [endpoint]);
  for (const body of [one.body, list.body])
    assert.ok(
      !body.includes(secret) && !body.includes('secret'),
      "holds: !body.includes(secret) && !body.includes('secret')",
    );

  // the audit log has the endpoint, never its secret
  const logs = json(await h.get('/api/logs?table=webhook_endpoints'));
  assert.equal(logs.total, 1);
  assert.equal(logs.items[0].action, 'INSERT');
  assert.equal(logs.items[0].record_id, endpoint.id);
  assert.equal(logs.items[0].new_data.url, r.url);
  assert.ok(!JSON.stringify(logs).includes(secret), 'JSON.stringify(logs) does not include secret');
  assert.ok(!JSON.stringify(logs).includes('whsec_'), "JSON.stringify(logs) does not include 'whsec_'");

  // "*" stands for every type
  const all = await createEndpoint(h, { url: r.url, events: ['client.created', '*'] });
  assert.deepEqual(all.endpoint.events, ['*']);
  assert.notEqual(all.secret, secret);
});

test('a replay of the creation under its Idempotency-Key answers the same endpoint and secret, creating nothing', async (t) => {
  const h = await build(t, PRIVATE);
  const r = await receiver(t);
  const send = () =>
    h.req({
      method: 'POST',
      url: '/api/webhook-endpoints',
      headers: { 'idempotency-key': 'erp-hook-1' },
      payload: { url: r.url, events: ['*'] },
    });
  const first = await send();
  const again = await send();
  assert.equal(first.statusCode, 201);
  assert.equal(again.statusCode, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.deepEqual(json(again), json(first));
  assert.equal(json(await h.get('/api/webhook-endpoints')).length, 1);
});

test('bad bodies are 400 with the field named: unknown event types, none, a URL that is none, unknown fields', async (t) => {
  const h = await build(t, PRIVATE);
  const url = 'http://127.0.0.1:9/hooks';
  for (const [body, path] of [
    [{ url, events: ['payment.made'] }, '/events/0'],
    [{ url, events: ['client.created', 'nope'] }, '/events/1'],
    [{ url, events: [] }, '/events'],
    [{ url, events: 'client.created' }, '/events'],
    [{ url }, '/events'],
    [{ events: ['*'] }, '/url'],
    [{ url: '', events: ['*'] }, '/url'],
    [{ url: 'not a url', events: ['*'] }, '/url'],
    [{ url: 'ftp://127.0.0.1/x', events: ['*'] }, '/url'],
    [{ url: 'http://user:pw@127.0.0.1/x', events: ['*'] }, '/url'],
    [{ url: `http://127.0.0.1/${'x'.repeat(2100)}`, events: ['*'] }, '/url'],
    [{ url, events: ['*'], secret: 'mine' }, '/secret'],
    [{ url, events: ['*'], description: 'x'.repeat(501) }, '/description'],
  ] as const) {
    const res = await h.post('/api/webhook-endpoints', body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.body}`);
    const b = json(res);
    assert.equal(b.code, 'validation_failed');
    assert.ok(
      b.details?.some((d: { path: string }) => d.path === path || d.path.startsWith(path)),
      `${JSON.stringify(body).slice(0, 80)} names ${path}: ${res.body}`,
    );
  }
  // an unknown type: one detail, listing the types it may be
  const unknown = json(await h.post('/api/webhook-endpoints', { url, events: ['client.created', 'nope'] }));
  assert.equal(unknown.details.length, 1, JSON.stringify(unknown));
  assert.equal(unknown.details[0].path, '/events/1');
  assert.equal(unknown.details[0].message, `must be one of: ${[...EVENT_TYPES, '*'].join(', ')}`);
  assert.match(unknown.error, /events\/1 must be one of: client\.created/);
  assert.deepEqual(json(await h.get('/api/webhook-endpoints')), []);
  // a read key does not write
  const ro = await h.post('/api/webhook-endpoints', { url, events: ['*'] }, h.tenant.readKey);
  assert.equal(ro.statusCode, 403);
});

test('PUT changes url, events and description; enabled false and true disable and resume; DELETE removes', async (t) => {
  const h = await build(t, PRIVATE);
  const r = await receiver(t);
  const { endpoint } = await createEndpoint(h, { url: r.url, events: ['client.created'] });
  const path = `/api/webhook-endpoints/${endpoint.id}`;

  const ed = await h.put(path, {
    events: ['client.updated', 'client.created'],
    description: 'CRM',
    url: `${r.url}/v2`,
  });
  assert.equal(ed.statusCode, 200, ed.body);
  const e = json(ed);
  assert.deepEqual(e.events, ['client.updated', 'client.created']);
  assert.equal(e.description, 'CRM');
  assert.equal(e.url, `${r.url}/v2`);
  assert.equal(e.created_at, endpoint.created_at);
  // nothing to change: the endpoint as it is; the record read back whole is accepted
  assert.deepEqual(json(await h.put(path, {})), e);
  assert.deepEqual(json(await h.put(path, { ...e, id: randomUUID(), created_at: '2001-01-01T00:00:00Z' })), e);
  assert.equal((await h.put(path, { events: ['nope'] })).statusCode, 400);
  assert.equal((await h.put(path, { url: 'gopher://x' })).statusCode, 400);
  assert.equal((await h.put(path, { enabled: 'no' })).statusCode, 400);

  const off = json(await h.put(path, { enabled: false }));
  assert.equal(off.enabled, false);
  assert.ok(off.disabled_at, 'off.disabled_at is set');
  assert.equal(off.disabled_reason, `disabled by api_key:${h.tenant.fullKeyId}`);
  const on = json(await h.put(path, { enabled: true, description: null }));
  assert.equal(on.enabled, true);
  assert.equal(on.disabled_at, null);
  assert.equal(on.disabled_reason, null);
  assert.equal(on.description, null);

  const del = await h.del(path);
  assert.equal(del.statusCode, 200);
  assert.equal(json(del).id, endpoint.id);
  assert.equal((await h.get(path)).statusCode, 404);
  assert.equal((await h.del(path)).statusCode, 404);
  assert.equal((await h.get(`${path}/deliveries`)).statusCode, 404);
  const actions = json(await h.get('/api/logs?table=webhook_endpoints&limit=100')).items.map(
    (i: { action: string }) => i.action,
  );
  // the edit, the disabling and the enabling; the PUTs that changed nothing wrote nothing
  assert.deepEqual(actions.sort(), ['DELETE', 'INSERT', 'UPDATE', 'UPDATE', 'UPDATE']);
});

test("another business's endpoints and deliveries are 404 to every operation, and it never receives this business's events", async (t) => {
  const h = await build(t, PRIVATE);
  const r = await receiver(t);
  const { endpoint } = await createEndpoint(h, { url: r.url, events: ['*'] });
  await announce(h, [{ type: 'client.created' }]);
  await runAt(h, new Date());
  const [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'delivered');

  const other = await h.newTenant();
  const o = { full: other.fullKey, read: other.readKey };
  const base = `/api/webhook-endpoints/${endpoint.id}`;
  for (const [method, url, key] of [
    ['GET', base, o.read],
    ['PUT', base, o.full],
    ['DELETE', base, o.full],
    ['GET', `${base}/deliveries`, o.read],
    ['POST', `${base}/deliveries/${d!.id}/retry`, o.full],
  ] as const) {
    const res = await h.req({ method, url, key, ...(method === 'PUT' ? { payload: { enabled: false } } : {}) });
    assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
    assert.equal(json(res).code, 'not_found');
  }
  assert.deepEqual(json(await h.get('/api/webhook-endpoints', o.read)), []);
  // its own endpoint never gets this business's events
  const r2 = await receiver(t);
  const theirs = json(
    await h.req({
      method: 'POST',
      url: '/api/webhook-endpoints',
      key: o.full,
      payload: { url: r2.url, events: ['*'] },
    }),
  );
  await announce(h, [{ type: 'client.created' }]);
  await runAt(h, new Date());
  await runAt(h, new Date(), {}, other.businessId);
  assert.equal(r.received.length, 2);
  assert.equal(r2.received.length, 0);
  assert.equal(json(await h.get(`${base}`)).enabled, true, 'unchanged by the other business');
  assert.ok(theirs.endpoint.id, 'theirs.endpoint.id is set');
});

test('the secret is in no log line, from creation to delivery', async (t) => {
  const log = capturedLogger('trace');
  const s = await serve(
    t,
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '60000', LOG_LEVEL: 'trace' },
    log.logger,
  );
  const r = await receiver(t);
  const created = await s.call('POST', '/api/webhook-endpoints', { url: r.url, events: ['*'] });
  assert.equal(created.status, 201);
  const { endpoint, secret } = created.body;
  assert.equal((await s.call('GET', `/api/webhook-endpoints/${endpoint.id}`)).status, 200);
  assert.equal((await s.call('GET', '/api/webhook-endpoints')).status, 200);
  const db = await sharedTestDb();
  await announce({ db, tenant: s.tenant } as never, [{ type: 'client.created' }]);
  const deps = { db, config: s.config, log: s.app.log };
  const now = new Date();
  await dispatch(deps, { now, businessId: s.tenant.businessId });
  // the first attempt fails (its error is logged at debug), the second delivers
  r.behave(() => 500);
  await deliverDue(deps, { now, businessId: s.tenant.businessId });
  r.behave(() => 200);
  await deliverDue(deps, { now: new Date(now.getTime() + 60_000), businessId: s.tenant.businessId });
  assert.equal(r.received.length, 2);
  assert.ok(log.raw.length > 3, 'something was logged');
  assert.ok(
    log.raw.some((l) => l.includes('webhook attempt failed')),
    "some l of log.raw: l.includes('webhook attempt failed')",
  );
  const leaked = log.raw.filter((l) => l.includes(secret) || l.includes('whsec_'));
  assert.deepEqual(leaked, []);
});

test('a business has at most 20 endpoints (422)', async (t) => {
  const h = await build(t, PRIVATE);
  for (let i = 0; i < 20; i++) await createEndpoint(h, { url: `http://127.0.0.1:9/${i}`, events: ['*'] });
  const res = await h.post('/api/webhook-endpoints', { url: 'http://127.0.0.1:9/x', events: ['*'] });
  assert.equal(res.statusCode, 422, res.body);
  assert.match(json(res).error, /at most 20/);
});
