// Webhooks (docs/webhooks.md): endpoints with a `whsec_` secret
// shown once; delivery = `POST url` with the event as body and `Lending-Event-Id`,
// `Lending-Event-Type`, `Lending-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
// "<t>.<raw body>")>`; success is a 2xx; retries back off exponentially for 3 days, then the
// endpoint is disabled; at least once; one credit's events in order; deliveries listed and retried
// by hand; URLs https:// to public addresses unless WEBHOOK_ALLOW_PRIVATE=true.
//
// Deliveries go to a receiver on 127.0.0.1 started by each test; the delivery job is started the
// way the server starts it (helpers.ts startDelivery).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, settableClock } from '../../../helpers/app.ts';
import {
  client,
  credit,
  deliveries,
  endpoint,
  error,
  eventually,
  feed,
  itemsOf,
  json,
  localServer,
  objectOf,
  pay,
  plan,
  startDelivery,
  status,
  verifySignature,
  type Received,
} from '../../../helpers/acceptance.ts';

const PRIVATE = { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } };
const ok2xx = (r: Received) => r.status >= 200 && r.status < 300;
const header = (r: Received, name: string) => r.headers[name.toLowerCase()];
/** GET /api/webhook-endpoints/{id}: the endpoint (ASSUMPTION: the record itself, or wrapped in `endpoint`). */
async function readEndpoint(h: any, id: string, key?: string): Promise<any> {
  const res = await h.get(`/api/webhook-endpoints/${id}`, key);
  status(res, 200, 'GET endpoint');
  const body = json(res);
  return body.endpoint ?? body;
}

test('endpoint management: the secret once, list, read, change, delete; read keys and other businesses refused', async (t) => {
  const h = await build(t, PRIVATE);
  const res = await h.post('/api/webhook-endpoints', {
    url: 'http://127.0.0.1:9/hooks',
    events: ['client.created', 'payment.created'],
    description: 'ERP',
  });
  status(res, 201);
  const { endpoint: ep, secret } = json(res);
  assert.match(secret, /^whsec_.{16,}/);
  assert.equal(ep.url, 'http://127.0.0.1:9/hooks');
  assert.deepEqual(ep.events, ['client.created', 'payment.created']);
  assert.equal(ep.description, 'ERP');
  assert.equal(ep.enabled, true);

  // never shown again
  const list = await h.get('/api/webhook-endpoints');
  status(list, 200);
  const read = await h.get(`/api/webhook-endpoints/${ep.id}`);
  status(read, 200);
  for (const r of [list, read]) assert.ok(!r.body.includes(secret.slice(6)), `the secret is not in ${r.body}`);
  const items = itemsOf(list, 'GET /api/webhook-endpoints');
  assert.deepEqual(
    items.map((e: any) => e.id),
    [ep.id],
  );

  // PUT changes url, events, enabled
  const put = await h.put(`/api/webhook-endpoints/${ep.id}`, {
    url: 'http://127.0.0.1:9/other',
    events: ['*'],
    enabled: false,
  });
  status(put, 200);
  const changed = await readEndpoint(h, ep.id);
  assert.deepEqual([changed.url, changed.events, changed.enabled], ['http://127.0.0.1:9/other', ['*'], false]);
  assert.ok(!put.body.includes(secret.slice(6)), 'holds: !put.body.includes(secret.slice(6))');

  // validation
  error(
    await h.post('/api/webhook-endpoints', { url: 'http://127.0.0.1:9/x', events: ['no.such'] }),
    400,
    'validation_failed',
  );
  error(await h.post('/api/webhook-endpoints', { url: 'not a url', events: ['*'] }), 400, 'validation_failed');
  error(await h.post('/api/webhook-endpoints', { url: 'http://127.0.0.1:9/x' }), 400, 'validation_failed');
  error(
    await h.post('/api/webhook-endpoints', { url: 'http://127.0.0.1:9/x', events: ['*'], secret: 'mine' }),
    400,
    'validation_failed',
  );

  // a read key reads, never writes
  status(await h.get(`/api/webhook-endpoints/${ep.id}`, h.tenant.readKey), 200);
  error(
    await h.post('/api/webhook-endpoints', { url: 'http://127.0.0.1:9/x', events: ['*'] }, h.tenant.readKey),
    403,
    'forbidden',
  );
  error(await h.del(`/api/webhook-endpoints/${ep.id}`, h.tenant.readKey), 403, 'forbidden');

  // another business: not found, and its list is empty
  const other = await h.newTenant();
  error(await h.get(`/api/webhook-endpoints/${ep.id}`, other.fullKey), 404, 'not_found');
  error(await h.put(`/api/webhook-endpoints/${ep.id}`, { enabled: true }, other.fullKey), 404, 'not_found');
  error(await h.del(`/api/webhook-endpoints/${ep.id}`, other.fullKey), 404, 'not_found');
  error(await h.get(`/api/webhook-endpoints/${ep.id}/deliveries`, other.fullKey), 404, 'not_found');
  assert.equal(itemsOf(await h.get('/api/webhook-endpoints', other.fullKey)).length, 0);
  error(await h.get('/api/webhook-endpoints/not-a-uuid'), 404, 'not_found');

  // delete
  status(await h.del(`/api/webhook-endpoints/${ep.id}`), 200);
  error(await h.get(`/api/webhook-endpoints/${ep.id}`), 404, 'not_found');
});

test('SSRF: without WEBHOOK_ALLOW_PRIVATE only https:// URLs of public addresses are accepted', async (t) => {
  const h = await build(t);
  const refused = [
    'http://93.184.215.14/hooks', // public, but not https
    'https://127.0.0.1/hooks',
    'https://localhost/hooks',
    'https://[::1]/hooks',
    'https://10.1.2.3/hooks',
    'https://172.16.5.4/hooks',
    'https://192.168.0.10/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://0.0.0.0/hooks',
    'https://[fd00::1]/hooks',
    'ftp://93.184.215.14/hooks',
  ];
  for (const url of refused) {
    const res = await h.post('/api/webhook-endpoints', { url, events: ['*'] });
    // ASSUMPTION: docs/api.md does not name the refusal's status: a bad request (400) or a rule (422)
    status(res, [400, 422], url);
    assert.ok(['validation_failed', 'unprocessable'].includes(json(res).code), res.body);
  }
  assert.equal(itemsOf(await h.get('/api/webhook-endpoints')).length, 0, 'nothing stored');

  // a public address over https is fine (an IP literal: no name to resolve)
  const ok = await h.post('/api/webhook-endpoints', { url: 'https://93.184.215.14/hooks', events: ['*'] });
  status(ok, 201);
  // and cannot be moved to a private one
  const moved = await h.put(`/api/webhook-endpoints/${json(ok).endpoint.id}`, { url: 'https://127.0.0.1/hooks' });
  status(moved, [400, 422]);

  // with WEBHOOK_ALLOW_PRIVATE=true, http:// and loopback are allowed
  const p = await build(t, PRIVATE);
  status(await p.post('/api/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks', events: ['*'] }), 201);
  status(await p.post('/api/webhook-endpoints', { url: 'http://10.1.2.3/hooks', events: ['*'] }), 201);
  status(await p.post('/api/webhook-endpoints', { url: 'ftp://127.0.0.1/hooks', events: ['*'] }), [400, 422]);
});

test('delivery: POST with the event as body, its id and type in headers, a valid signature; only subscribed types', {
  timeout: 120_000,
}, async (t) => {
  const h = await build(t, PRIVATE);
  const rx = await localServer(t, () => 200);
  const { endpoint: ep, secret } = await endpoint(h, `${rx.url}/hooks?source=lending`, ['client.created']);
  startDelivery(t, h);
  const p = await plan(h); // plan.created: not subscribed
  const c = await client(h);

  const got = await eventually('the client.created delivery', () => rx.received.find(ok2xx));
  assert.equal(got.method, 'POST');
  assert.equal(got.url, '/hooks?source=lending');
  assert.match(String(header(got, 'content-type')), /^application\/json/);
  const t0 = verifySignature(secret, header(got, 'lending-signature'), got.raw);
  assert.ok(Math.abs(t0 - Date.now() / 1000) < 300, 't= is now, in unix seconds');
  // a receiver with the wrong secret would reject it
  assert.throws(() => verifySignature(`${secret}x`, header(got, 'lending-signature'), got.raw));
  assert.throws(() => verifySignature(secret, header(got, 'lending-signature'), `${got.raw} `));

  // the event as body, exactly as the feed has it
  const [event] = await feed(h, { types: 'client.created' });
  assert.deepEqual(got.body, event);
  assert.equal(header(got, 'lending-event-id'), event.id);
  assert.equal(header(got, 'lending-event-type'), 'client.created');
  assert.equal((got.body.data.object.client ?? got.body.data.object).id, c.id);

  // listed as delivered
  const list = await eventually('the delivery listed as delivered', async () => {
    const ds = await deliveries(h, ep.id);
    return ds.some((d) => d.delivered_at) ? ds : null;
  });
  const d = list.find((x) => x.event_id === event.id && x.delivered_at);
  assert.ok(d, JSON.stringify(list));
  for (const k of [
    'id',
    'event_id',
    'attempt',
    'status_code',
    'error',
    'created_at',
    'next_attempt_at',
    'delivered_at',
  ])
    assert.ok(k in d, `delivery field ${k}: ${JSON.stringify(d)}`);
  assert.equal(d.status_code, 200);
  assert.equal(d.attempt, 1);
  // plan.created was never sent to this endpoint
  const [planEvent] = await feed(h, { types: 'plan.created' });
  assert.equal(planEvent.data.object.id, p.id);
  assert.ok(!list.some((x) => x.event_id === planEvent.id), 'holds: !list.some((x) => x.event_id === planEvent.id)');
  assert.ok(
    !rx.received.some((r) => r.body?.type === 'plan.created'),
    "holds: !rx.received.some((r) => r.body?.type === 'plan.created')",
  );
  // a read key may list deliveries
  status(await h.get(`/api/webhook-endpoints/${ep.id}/deliveries`, h.tenant.readKey), 200);
});

test('a failed delivery is listed with its status, retried by hand (202), then delivered again with the same event id', {
  timeout: 120_000,
}, async (t) => {
  // a clock that does not move (set a little ahead of the real time, so what is written now is
  // due): no automatic retry comes due during the test
  const h = await build(t, { ...PRIVATE, clock: settableClock(new Date(Date.now() + 2000)) });
  let up = false;
  const rx = await localServer(t, () => (up ? 204 : 503));
  const { endpoint: ep, secret } = await endpoint(h, `${rx.url}/hooks`, ['client.created']);
  startDelivery(t, h);
  await client(h);
  const [event] = await feed(h, { types: 'client.created' });

  await eventually('the first attempt', () => rx.received.length >= 1);
  const failed = await eventually('the failed attempt listed', async () =>
    (await deliveries(h, ep.id)).find((d) => d.event_id === event.id && d.status_code === 503),
  );
  assert.equal(failed.delivered_at, null);
  assert.ok(failed.next_attempt_at, 'a failed delivery has its next attempt scheduled');
  assert.ok(Date.parse(failed.next_attempt_at) > Date.parse(failed.created_at), 'the retry is later');

  up = true;
  const retry = await h.post(`/api/webhook-endpoints/${ep.id}/deliveries/${failed.id}/retry`);
  status(retry, 202);
  await eventually('the retried delivery', () => rx.received.some(ok2xx));
  const attempts = rx.received.filter((r) => header(r, 'lending-event-id') === event.id);
  assert.ok(attempts.length >= 2, 'at least once: the same event again');
  for (const a of attempts) verifySignature(secret, header(a, 'lending-signature'), a.raw);
  assert.deepEqual(attempts.at(-1)!.body, event);

  const done = await eventually('listed as delivered', async () =>
    (await deliveries(h, ep.id)).find((d) => d.event_id === event.id && d.delivered_at),
  );
  assert.equal(done.status_code, 204);
  assert.ok(done.attempt >= 2, 'holds: done.attempt >= 2');

  // retrying a delivery of another endpoint or business: not found
  const other = await h.newTenant();
  error(
    await h.post(`/api/webhook-endpoints/${ep.id}/deliveries/${failed.id}/retry`, undefined, other.fullKey),
    404,
    'not_found',
  );
  error(
    await h.post(`/api/webhook-endpoints/${ep.id}/deliveries/${failed.id}/retry`, undefined, h.tenant.readKey),
    403,
    'forbidden',
  );
});

test('retries back off exponentially for 3 days, then the endpoint is disabled', { timeout: 300_000 }, async (t) => {
  // ASSUMPTION: retry times are read on the app's clock (the harness's settable clock), so the
  // test moves it to each next_attempt_at instead of waiting days
  const clock = settableClock(new Date(Date.now() + 2000));
  const h = await build(t, { ...PRIVATE, clock });
  const rx = await localServer(t, () => 500);
  const { endpoint: ep } = await endpoint(h, `${rx.url}/hooks`, ['client.created']);
  startDelivery(t, h);
  await client(h);
  const start = clock().getTime();

  const gaps: number[] = [];
  let disabledAt: number | null = null;
  for (let i = 0; i < 80; i++) {
    const n = rx.received.length;
    await eventually(`attempt ${n + 1}`, async () => rx.received.length > n || !(await readEndpoint(h, ep.id)).enabled);
    if (!(await readEndpoint(h, ep.id)).enabled) {
      disabledAt = clock().getTime();
      break;
    }
    // the attempt is recorded: its next attempt time (while the attempt is in flight, before its
    // outcome is recorded, the delivery shows no status_code yet)
    const pending = await eventually('the next attempt scheduled', async () => {
      const ds = await deliveries(h, ep.id);
      const last = ds.filter(
        (d) => !d.delivered_at && d.next_attempt_at && d.attempt === rx.received.length && d.status_code !== null,
      );
      const next = Math.max(...last.map((d) => Date.parse(d.next_attempt_at)));
      if (Number.isFinite(next) && next > clock().getTime()) return next;
      // no next attempt: the endpoint must be disabled now
      return !(await readEndpoint(h, ep.id)).enabled ? -1 : 0;
    });
    if (pending === -1) {
      disabledAt = clock().getTime();
      break;
    }
    gaps.push(pending - clock().getTime());
    clock.set(new Date(pending + 1000));
  }
  assert.ok(disabledAt !== null, `the endpoint is disabled in the end (gaps ${gaps.map((g) => g / 1000)} s)`);
  const DAY = 86_400_000;
  assert.ok(disabledAt - start >= 3 * DAY - 60_000, `not before 3 days: after ${(disabledAt - start) / DAY} days`);
  assert.ok(gaps.length >= 4, `several retries: ${gaps.length}`);
  // exponential: the waits grow, the longest many times the first (the last one is cut short at
  // the 3-day deadline, so it can be any length)
  for (let i = 1; i < Math.min(gaps.length, 5); i++)
    assert.ok(gaps[i]! > gaps[i - 1]!, `wait ${i + 1} (${gaps[i]! / 1000} s) > wait ${i} (${gaps[i - 1]! / 1000} s)`);
  assert.ok(Math.max(...gaps) >= 8 * gaps[0]!, `the waits grow exponentially: ${gaps.map((g) => g / 1000)} s`);

  // attempts counted up, one listing per event
  const ds = await deliveries(h, ep.id);
  assert.ok(
    Math.max(...ds.map((d) => d.attempt)) >= gaps.length,
    'holds: Math.max(...ds.map((d) => d.attempt)) >= gaps.length',
  );
  assert.ok(
    ds.every((d) => !d.delivered_at),
    'every d of ds: !d.delivered_at',
  );
});

test("one credit's events arrive in order, even when the first of them has to be retried", {
  timeout: 120_000,
}, async (t) => {
  const h = await build(t, { ...PRIVATE, clock: settableClock(new Date(Date.now() + 2000)) });
  let failedOnce = false;
  const rx = await localServer(t, (r) => {
    if (r.body?.type === 'credit.created' && !failedOnce) {
      failedOnce = true;
      return 500;
    }
    return 200;
  });
  const { endpoint: ep, secret } = await endpoint(h, `${rx.url}/hooks`, ['*']);
  startDelivery(t, h);
  const p = await plan(h, { installments_count: 3 });
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 300 });
  await pay(h, d.credit.id, { amount: 50 });
  await pay(h, d.credit.id, { amount: 60 });
  const creditEvents = (await feed(h)).filter((e) => ['credit.created', 'payment.created'].includes(e.type));
  assert.equal(creditEvents.length, 3);

  await eventually('the failed credit.created attempt', () => failedOnce);
  const failed = await eventually('listed', async () =>
    (await deliveries(h, ep.id)).find(
      (x) => x.event_id === creditEvents[0].id && !x.delivered_at && x.status_code === 500,
    ),
  );
  status(await h.post(`/api/webhook-endpoints/${ep.id}/deliveries/${failed.id}/retry`), 202);

  const ids = creditEvents.map((e) => e.id);
  await eventually('all three delivered', () =>
    ids.every((id) => rx.received.some((r) => ok2xx(r) && header(r, 'lending-event-id') === id)),
  );
  // the order in which the receiver accepted them is the credit's order
  const accepted = rx.received.filter((r) => ok2xx(r) && ids.includes(String(header(r, 'lending-event-id'))));
  const firstAccepted = [...new Set(accepted.map((r) => String(header(r, 'lending-event-id'))))];
  assert.deepEqual(firstAccepted, ids, 'credit.created, then the payments, in sequence order');
  // and no payment of the credit was even attempted before its credit.created went through
  const okCreated = rx.received.findIndex((r) => ok2xx(r) && header(r, 'lending-event-id') === ids[0]);
  const firstPayment = rx.received.findIndex((r) => header(r, 'lending-event-id') === ids[1]);
  assert.ok(firstPayment > okCreated, 'the payments waited for the credit.created before them');
  for (const r of rx.received) verifySignature(secret, header(r, 'lending-signature'), r.raw);
});

test('events written while no delivery process runs are delivered when one starts (at least once)', {
  timeout: 120_000,
}, async (t) => {
  const h = await build(t, PRIVATE);
  const rx = await localServer(t, () => 200);
  await endpoint(h, `${rx.url}/hooks`, ['client.created']);
  // the server is down: events pile up
  const clients = [await client(h), await client(h), await client(h)];
  const stop = startDelivery(t, h);
  await eventually('three deliveries', () => new Set(rx.received.filter(ok2xx).map((r) => r.body.id)).size === 3);
  stop();
  // a delivery process killed and started again: more events, still delivered
  const more = await client(h);
  startDelivery(t, h);
  const deliveredIds = () => new Set(rx.received.filter(ok2xx).map((r) => objectOf(r.body, 'client')?.id));
  await eventually('the fourth', () => deliveredIds().has(more.id));
  for (const c of clients) assert.ok(deliveredIds().has(c.id), 'holds: deliveredIds().has(c.id)');
});
