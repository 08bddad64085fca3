// Delivery (docs/webhooks.md): the event as the feed lists it, signed (checked with the docs' own
// verifier), retried with backoff on a 500 or a timeout, given up after 3 days with the endpoint
// disabled, resumed by re-enabling, retried by hand, in order per credit, and sent again when the
// sender that held its lease died. Time is the `now` each run is given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, json, settableClock } from '../helpers/app.ts';
import { testDbKind } from '../helpers/db.ts';
import {
  announce,
  at,
  createEndpoint,
  deliveries,
  depsOf,
  receiver,
  runAt,
  type Received,
} from '../helpers/webhooks.ts';
import { deliverDue, dispatch, signature, sweepDeliveries } from '../../src/services/webhooks.ts';
import { claimDue, recordAttempt } from '../../src/db/repositories/webhooks.ts';
import { startWebhookDelivery } from '../../src/jobs/webhooks.ts';
import { Metrics } from '../../src/metrics.ts';
import { FIRST_RETRY_MS, MAX_RETRY_MS, RETRY_WINDOW_MS, retryDelayMs } from '../../src/domain/webhooks.ts';
import { systemClock } from '../../src/domain/index.ts';

// a receiver on loopback; a timeout no loaded test machine reaches (the timeout test sets its own)
const PRIVATE = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '60000' };
const T0 = new Date('2026-05-04T10:00:00.000Z');
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;

/** The verifier of docs/webhooks.md ("Verify a signature"), as printed there. */
async function docsVerifier(): Promise<(body: string, header: string, secret: string, tolerance?: number) => boolean> {
  const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
  const block = /```js\n([\s\S]*?export function verifyLendingSignature[\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(block, 'docs/webhooks.md has the verifier');
  assert.ok(block.split('\n').filter((l) => l.trim()).length <= 10, 'the example stays about 10 lines');
  const dir = mkdtempSync(join(tmpdir(), 'lending-verify-'));
  const file = join(dir, 'verify.mjs');
  writeFileSync(file, block);
  try {
    return (await import(pathToFileURL(file).href)).verifyLendingSignature;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a delivery is the event as the feed lists it, with its headers and a signature the docs’ verifier accepts', async (t) => {
  const h = await build(t, { env: PRIVATE });
  const r = await receiver(t);
  const { endpoint, secret } = await createEndpoint(h, { url: r.url, events: ['client.created', 'client.updated'] });
  // real writes, each announcing its event: a client created and edited, and a branch (not subscribed)
  const created = await h.post('/api/clients', { dni: '30123456', first_name: 'Ana' });
  assert.equal(created.statusCode, 201, created.body);
  const client = json(created).id as string;
  assert.equal((await h.post('/api/branches', { name: 'Centro' })).statusCode, 201);
  assert.equal((await h.put(`/api/clients/${client}`, { first_name: 'Ana María' })).statusCode, 200);
  const pass = await runAt(h, new Date());
  assert.deepEqual(pass, { attempted: 2, delivered: 2, retrying: 0, failed: 0 });
  assert.deepEqual(
    r.received.map((x) => x.headers['lending-event-type']),
    ['client.created', 'client.updated'],
  );

  const feed = json(await h.get('/api/events?after=0&limit=100', h.tenant.readKey));
  assert.deepEqual(
    feed.items.map((e: { type: string }) => e.type),
    ['client.created', 'branch.created', 'client.updated'],
  );
  for (const got of r.received) {
    assert.equal(got.method, 'POST');
    assert.equal(got.url, '/hooks');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], 'lending-webhooks/1');
    assert.equal(got.headers['lending-event-id'], got.event.id);
    assert.equal(got.headers['lending-event-type'], got.event.type);
    assert.deepEqual(
      got.event,
      feed.items.find((e: { id: string }) => e.id === got.event.id),
      'the body is the feed item',
    );
    assert.deepEqual(Object.keys(got.event), ['id', 'sequence', 'type', 'created_at', 'data']);
    assert.equal(got.event.data.object.id, client);
  }
  assert.equal((r.received[1]!.event.data.object as { first_name?: string }).first_name, 'Ana María');

  const verify = await docsVerifier();
  const first = r.received[0]!;
  const header = String(first.headers['lending-signature']);
  assert.match(header, /^t=\d{10},v1=[0-9a-f]{64}$/);
  assert.equal(verify(first.body, header, secret), true, 'the docs’ verifier accepts a real delivery');
  assert.equal(verify(Buffer.from(first.body) as never, header, secret), true, 'as a Buffer too');
  assert.equal(verify(first.body.replace('Ana', 'Eve'), header, secret), false, 'a changed body');
  assert.equal(verify(first.body, header, `${secret}x`), false, 'another secret');
  const flipped = header.replace(/v1=(.)/, (_m, c: string) => `v1=${c === '0' ? '1' : '0'}`);
  assert.equal(verify(first.body, flipped, secret), false, 'a changed signature');
  assert.equal(verify(first.body, header.replace(/,v1=.*/, ''), secret), false, 'no signature');
  assert.equal(verify(first.body, 'garbage', secret), false, 'no timestamp');
  // a captured request replayed 10 minutes later: refused by the timestamp, however well signed
  const old = Math.floor(Date.now() / 1000) - 600;
  assert.equal(verify(first.body, `t=${old},v1=${signature(secret, old, first.body)}`, secret), false);
  assert.equal(verify(first.body, `t=${old},v1=${signature(secret, old, first.body)}`, secret, 900), true);

  const list = await deliveries(h, endpoint.id);
  assert.equal(list.length, 2);
  for (const d of list) {
    assert.equal(d.status, 'delivered');
    assert.equal(d.attempt, 1);
    assert.equal(d.status_code, 200);
    assert.equal(d.error, null);
    assert.equal(d.next_attempt_at, null);
    assert.ok(d.delivered_at, 'd.delivered_at is set');
  }
  assert.deepEqual(
    list.map((d) => d.event_type),
    ['client.updated', 'client.created'],
    'newest first',
  );
  // nothing is sent twice
  assert.deepEqual(await runAt(h, new Date(Date.now() + DAY)), { attempted: 0, delivered: 0, retrying: 0, failed: 0 });
  assert.equal(r.received.length, 2);
});

test('the retry schedule: 30 s doubling, at most 6 h, ±20 % jitter', () => {
  assert.equal(retryDelayMs(1, 0.5), FIRST_RETRY_MS);
  assert.equal(retryDelayMs(2, 0.5), 2 * FIRST_RETRY_MS);
  assert.equal(retryDelayMs(5, 0.5), 16 * FIRST_RETRY_MS);
  assert.equal(retryDelayMs(11, 0.5), MAX_RETRY_MS);
  assert.equal(retryDelayMs(500, 0.5), MAX_RETRY_MS);
  assert.equal(retryDelayMs(1, 0), 0.8 * FIRST_RETRY_MS);
  assert.ok(
    retryDelayMs(1, 0.999999) <= 1.2 * FIRST_RETRY_MS,
    'holds: retryDelayMs(1, 0.999999) <= 1.2 * FIRST_RETRY_MS',
  );
  assert.ok(
    retryDelayMs(1, 0.999999) > 1.19 * FIRST_RETRY_MS,
    'holds: retryDelayMs(1, 0.999999) > 1.19 * FIRST_RETRY_MS',
  );
});

test('a receiver answering 500 gets the event again after 30 s, 1 min, 2 min…, and once it answers 200 it is delivered', async (t) => {
  const h = await build(t, { env: PRIVATE });
  const r = await receiver(t, () => 500);
  const { endpoint } = await createEndpoint(h, { url: r.url, events: ['*'] });
  await announce(h, [{ type: 'branch.created' }]);

  let now = T0;
  await runAt(h, now);
  let [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'pending');
  assert.equal(d!.attempt, 1);
  assert.equal(d!.status_code, 500);
  assert.equal(d!.error, 'HTTP 500: receiver says 500');
  assert.equal(d!.last_attempt_at, T0.toISOString());
  for (const [n, pause] of [
    [1, 30 * SECOND],
    [2, MINUTE],
    [3, 2 * MINUTE],
    [4, 4 * MINUTE],
  ] as const) {
    assert.equal(d!.attempt, n);
    assert.equal(Date.parse(d!.next_attempt_at!) - now.getTime(), pause, `the pause after attempt ${n}`);
    // not before its time
    assert.equal((await runAt(h, at(now, pause - 1))).attempted, 0);
    now = at(now, pause);
    assert.equal((await runAt(h, now)).attempted, 1);
    [d] = await deliveries(h, endpoint.id);
  }
  assert.equal(r.received.length, 5);
  assert.equal(new Set(r.received.map((x) => x.event.id)).size, 1, 'the same event each time');
  // each attempt signed afresh, with its own timestamp
  assert.equal(new Set(r.received.map((x) => x.headers['lending-signature'])).size, 5);

  r.behave(() => 204);
  now = new Date(d!.next_attempt_at!);
  assert.deepEqual(await runAt(h, now), { attempted: 1, delivered: 1, retrying: 0, failed: 0 });
  [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'delivered');
  assert.equal(d!.attempt, 6);
  assert.equal(d!.status_code, 204);
  assert.equal(d!.error, null);
  assert.equal(d!.delivered_at, now.toISOString());
  assert.equal(d!.next_attempt_at, null);
  assert.deepEqual(
    (await deliveries(h, endpoint.id, '&status=delivered')).map((x) => x.id),
    [d!.id],
  );
  assert.deepEqual(await deliveries(h, endpoint.id, '&status=pending'), []);
});

test('no answer within WEBHOOK_TIMEOUT_MS, a redirect, a refused connection: failed attempts, retried', async (t) => {
  const h = await build(t, { env: { ...PRIVATE, WEBHOOK_TIMEOUT_MS: '150' } });
  const r = await receiver(t, () => 'hang');
  const { endpoint } = await createEndpoint(h, { url: r.url, events: ['*'] });
  await announce(h, [{ type: 'branch.created' }]);
  await runAt(h, T0);
  let [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'pending');
  assert.equal(d!.status_code, null);
  assert.equal(d!.error, 'no answer within 150 ms');
  assert.equal(r.received.length, 1);

  r.behave(() => 302);
  await runAt(h, at(T0, 30 * SECOND));
  [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status_code, 302);
  assert.equal(d!.error, 'HTTP 302 (redirects are not followed)');

  // nothing listening there
  await h.put(`/api/webhook-endpoints/${endpoint.id}`, { url: 'http://127.0.0.1:9/hooks' });
  await runAt(h, at(T0, 90 * SECOND));
  [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.attempt, 3);
  assert.match(d!.error!, /ECONNREFUSED/);

  await h.put(`/api/webhook-endpoints/${endpoint.id}`, { url: r.url });
  r.behave(() => 200);
  await runAt(h, at(T0, 210 * SECOND));
  [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'delivered');
  assert.equal(d!.attempt, 4);
});

/** Runs the job at each moment a pending delivery is due, until `done` or `limit` runs. */
async function runUntil(h: Parameters<typeof runAt>[0], endpointId: string, done: () => Promise<boolean>, limit = 100) {
  let runs = 0;
  while (!(await done())) {
    const pending = await deliveries(h, endpointId, '&status=pending');
    const next = Math.min(...pending.map((d) => Date.parse(d.next_attempt_at!)));
    assert.ok(Number.isFinite(next), 'something is pending');
    await runAt(h, new Date(next));
    assert.ok(++runs < limit, 'ends');
  }
  return runs;
}

test('after 3 days of failures the delivery fails and the endpoint is disabled; re-enabling delivers what it missed, in order', async (t) => {
  const clock = settableClock(T0);
  const h = await build(t, { env: PRIVATE, clock });
  const r = await receiver(t, () => 503);
  const { endpoint } = await createEndpoint(h, { url: r.url, events: ['*'] });
  const credit = crypto.randomUUID();
  await announce(h, [{ type: 'credit.created', id: credit, credit }]);
  await runAt(h, T0);
  await runUntil(h, endpoint.id, async () => (await deliveries(h, endpoint.id))[0]!.status === 'failed');

  const [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'failed');
  assert.equal(d!.attempt, 22, 'the schedule of docs/webhooks.md: 22 attempts');
  assert.equal(d!.last_attempt_at, at(T0, RETRY_WINDOW_MS).toISOString(), 'the last exactly 3 days after the first');
  assert.equal(d!.next_attempt_at, null);
  assert.equal(d!.status_code, 503);
  assert.equal(r.received.length, 22);

  const ep = json(await h.get(`/api/webhook-endpoints/${endpoint.id}`));
  assert.equal(ep.enabled, false);
  assert.equal(ep.disabled_at, at(T0, RETRY_WINDOW_MS).toISOString());
  assert.match(
    ep.disabled_reason,
    new RegExp(
      `^delivery ${d!.id} of event \\d+ \\(credit.created\\) failed for 3 days, 22 attempts; the last: HTTP 503`,
    ),
  );
  const audit = json(await h.get('/api/logs?table=webhook_endpoints&action=UPDATE'));
  assert.equal(audit.items[0].actor, 'system:webhooks');
  assert.equal(audit.items[0].new_data.enabled, false);

  // disabled: nothing is sent, new events wait; a retry by hand is queued, and waits too
  await announce(h, [{ type: 'payment.created', credit }, { type: 'branch.created' }]);
  assert.deepEqual(await runAt(h, at(T0, 4 * DAY)), { attempted: 0, delivered: 0, retrying: 0, failed: 0 });
  assert.equal(r.received.length, 22);
  const queued = await h.post(`/api/webhook-endpoints/${endpoint.id}/deliveries/${d!.id}/retry`);
  assert.equal(queued.statusCode, 202, queued.body);
  assert.equal(json(queued).status, 'pending');
  assert.deepEqual(await runAt(h, at(T0, 4 * DAY + MINUTE)), { attempted: 0, delivered: 0, retrying: 0, failed: 0 });
  assert.equal(r.received.length, 22);

  // fixed and enabled again: the failed delivery first, then what happened meanwhile, in order
  r.behave(() => 200);
  clock.set(at(T0, 5 * DAY));
  const on = json(await h.put(`/api/webhook-endpoints/${endpoint.id}`, { enabled: true }));
  assert.equal(on.enabled, true);
  assert.equal(on.disabled_at, null);
  assert.equal(on.disabled_reason, null);
  const pass = await runAt(h, at(T0, 5 * DAY));
  assert.equal(pass.delivered, 3);
  const after = r.received.slice(22).map((x) => x.event.type);
  assert.equal(after.length, 3);
  assert.ok(after.indexOf('credit.created') < after.indexOf('payment.created'), `a credit's events in order: ${after}`);
  const all = await deliveries(h, endpoint.id);
  assert.deepEqual(
    all.map((x) => x.status),
    ['delivered', 'delivered', 'delivered'],
  );
  assert.equal(all.find((x) => x.id === d!.id)!.attempt, 23);
});

test('a retry by hand: a delivered delivery is sent again, a backing-off one now; unknown ids are 404', async (t) => {
  const clock = settableClock(T0);
  const h = await build(t, { env: PRIVATE, clock });
  const r = await receiver(t);
  const { endpoint } = await createEndpoint(h, { url: r.url, events: ['*'] });
  const other = await createEndpoint(h, { url: r.url, events: ['plan.created'] });
  await announce(h, [{ type: 'branch.created' }]);
  await runAt(h, T0);
  const [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'delivered');

  clock.set(at(T0, MINUTE));
  const res = await h.post(`/api/webhook-endpoints/${endpoint.id}/deliveries/${d!.id}/retry`);
  assert.equal(res.statusCode, 202, res.body);
  const scheduled = json(res);
  assert.equal(scheduled.id, d!.id);
  assert.equal(scheduled.status, 'pending');
  assert.equal(scheduled.next_attempt_at, at(T0, MINUTE).toISOString());
  assert.equal(scheduled.delivered_at, null);
  await runAt(h, at(T0, MINUTE));
  assert.equal(r.received.length, 2);
  assert.equal(r.received[1]!.event.id, r.received[0]!.event.id, 'the same event again');
  const [again] = await deliveries(h, endpoint.id);
  assert.equal(again!.status, 'delivered');
  assert.equal(again!.attempt, 2);

  // backing off: due now instead of in 30 s
  r.behave(() => 500);
  await announce(h, [{ type: 'branch.updated' }]);
  await runAt(h, at(T0, 2 * MINUTE));
  const [failing] = await deliveries(h, endpoint.id);
  assert.equal(failing!.next_attempt_at, at(T0, 2 * MINUTE + 30 * SECOND).toISOString());
  r.behave(() => 200);
  clock.set(at(T0, 2 * MINUTE + SECOND));
  assert.equal((await h.post(`/api/webhook-endpoints/${endpoint.id}/deliveries/${failing!.id}/retry`)).statusCode, 202);
  assert.equal((await runAt(h, at(T0, 2 * MINUTE + SECOND))).delivered, 1);

  for (const url of [
    `/api/webhook-endpoints/${endpoint.id}/deliveries/${crypto.randomUUID()}/retry`,
    `/api/webhook-endpoints/${other.endpoint.id}/deliveries/${d!.id}/retry`,
    `/api/webhook-endpoints/${crypto.randomUUID()}/deliveries/${d!.id}/retry`,
    `/api/webhook-endpoints/${endpoint.id}/deliveries/nope/retry`,
  ]) {
    const nf = await h.post(url);
    assert.equal(nf.statusCode, 404, `${url}: ${nf.body}`);
  }
  assert.equal(
    (await h.post(`/api/webhook-endpoints/${endpoint.id}/deliveries/${d!.id}/retry`, undefined, h.tenant.readKey))
      .statusCode,
    403,
  );
});

test("a credit's failing event holds back its later events, not another credit's; once delivered they follow in order", async (t) => {
  const h = await build(t, { env: PRIVATE });
  const A = crypto.randomUUID();
  const B = crypto.randomUUID();
  const firstOfA = crypto.randomUUID();
  let failA = true;
  const r = await receiver(t, (x: Received) => (failA && x.event.data.object.id === firstOfA ? 500 : 200));
  const { endpoint } = await createEndpoint(h, { url: r.url, events: ['*'] });
  await announce(h, [
    { type: 'credit.created', id: firstOfA, credit: A },
    { type: 'credit.created', credit: B },
    { type: 'payment.created', credit: A },
    { type: 'payment.created', credit: B },
    { type: 'payment.reversed', credit: A },
    { type: 'client.created' },
  ]);
  const seqOf = (x: Received) => x.event.sequence;

  await runAt(h, T0);
  // A's first failed; B's two and the client went (B's payment once B's creation was delivered);
  // A's later two were not attempted
  let list = await deliveries(h, endpoint.id);
  const [aFirst, bFirst, aPay, bPay, aRev, client] = [...list].sort((x, y) => x.sequence - y.sequence);
  assert.deepEqual(r.received.map((x) => x.event.type).sort(), [
    'client.created',
    'credit.created',
    'credit.created',
    'payment.created',
  ]);
  assert.deepEqual(r.received.filter((x) => [bFirst!.event_id, bPay!.event_id].includes(x.event.id)).map(seqOf), [
    bFirst!.sequence,
    bPay!.sequence,
  ]);
  assert.equal(aFirst!.status, 'pending');
  assert.equal(aFirst!.attempt, 1);
  assert.equal(aFirst!.status_code, 500);
  for (const d of [bFirst, bPay, client]) assert.equal(d!.status, 'delivered');
  for (const d of [aPay, aRev]) {
    assert.equal(d!.status, 'pending');
    assert.equal(d!.attempt, 0, 'never attempted while the earlier event of its credit is not delivered');
    // held until A's first is tried again: no claim looks at them before then
    assert.equal(d!.next_attempt_at, aFirst!.next_attempt_at);
  }

  // still failing at its next attempt: the rest of A still waits
  await runAt(h, at(T0, 30 * SECOND));
  list = await deliveries(h, endpoint.id);
  assert.equal(list.find((d) => d.id === aFirst!.id)!.attempt, 2);
  assert.equal(list.find((d) => d.id === aPay!.id)!.attempt, 0);
  assert.equal(
    list.find((d) => d.id === aPay!.id)!.next_attempt_at,
    list.find((d) => d.id === aFirst!.id)!.next_attempt_at,
  );
  assert.equal(r.received.length, 5);

  // delivered at last: A's later events follow in the same run, in order
  failA = false;
  const pass = await runAt(h, at(T0, 90 * SECOND));
  assert.equal(pass.delivered, 3, JSON.stringify(await deliveries(h, endpoint.id), null, 1));
  assert.deepEqual(r.received.slice(-3).map(seqOf), [aFirst!.sequence, aPay!.sequence, aRev!.sequence]);
  assert.ok(
    (await deliveries(h, endpoint.id)).every((d) => d.status === 'delivered' && d.attempt <= 3),
    'every delivery delivered within 3 attempts',
  );
});

test('a sender that died after taking its lease: the delivery is sent again once the lease has run out, and the dead one’s late answer changes nothing', async (t) => {
  const h = await build(t, { env: PRIVATE });
  const r = await receiver(t);
  const { endpoint } = await createEndpoint(h, { url: r.url, events: ['*'] });
  await announce(h, [{ type: 'branch.created' }]);
  const deps = depsOf(h);
  const scope = { businessId: h.tenant.businessId };
  await dispatch(deps, { ...scope, now: T0 });
  // the dying sender: claims (its lease committed), then never sends nor records
  const claimed = await h.db.kysely
    .transaction()
    .execute((trx) => claimDue(trx, { now: T0, leaseUntil: at(T0, 30 * SECOND), limit: 10, ...scope }));
  assert.equal(claimed.length, 1);
  let [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'pending');
  assert.equal(d!.attempt, 1);
  assert.equal(d!.error, null);
  assert.equal(d!.next_attempt_at, at(T0, 30 * SECOND).toISOString());

  // while the lease lasts, nobody else takes it
  assert.equal((await deliverDue(deps, { ...scope, now: at(T0, 29 * SECOND) })).attempted, 0);
  assert.equal(r.received.length, 0);
  // after it, another sender does
  assert.deepEqual(await deliverDue(deps, { ...scope, now: at(T0, 30 * SECOND) }), {
    attempted: 1,
    delivered: 1,
    retrying: 0,
    failed: 0,
  });
  assert.equal(r.received.length, 1);
  [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'delivered');
  assert.equal(d!.attempt, 2);

  // the first sender comes back with an answer for attempt 1: not recorded
  const late = await h.db.kysely.transaction().execute((trx) =>
    recordAttempt(trx, claimed[0]!, {
      status: 'pending',
      status_code: 500,
      error: 'late',
      next_attempt_at: at(T0, DAY),
      delivered_at: null,
    }),
  );
  assert.equal(late, false);
  const [still] = await deliveries(h, endpoint.id);
  assert.deepEqual(still, d);
});

test('the sweep deletes deliveries delivered more than 30 days ago; pending and failed ones stay', async (t) => {
  // a timeline of its own, long before any other test's: the sweep serves every business
  const T = new Date('2001-01-01T00:00:00.000Z');
  const h = await build(t, { env: PRIVATE });
  const r = await receiver(t, (x: Received) => (x.event.type === 'branch.updated' ? 500 : 200));
  const { endpoint } = await createEndpoint(h, { url: r.url, events: ['*'] });
  await announce(h, [{ type: 'branch.created' }, { type: 'branch.updated' }]);
  await runAt(h, T);
  await announce(h, [{ type: 'plan.created' }]);
  await runAt(h, at(T, 20 * DAY));
  assert.deepEqual(
    (await deliveries(h, endpoint.id)).map((d) => [d.event_type, d.status]),
    [
      ['plan.created', 'delivered'],
      ['branch.updated', 'failed'],
      ['branch.created', 'delivered'],
    ],
  );
  assert.equal(await sweepDeliveries(h.db, at(T, 30 * DAY)), 0, 'none is 30 days old yet');
  assert.ok(
    (await sweepDeliveries(h.db, at(T, 31 * DAY))) >= 1,
    'holds: (await sweepDeliveries(h.db, at(T, 31 * DAY))) >= 1',
  );
  assert.deepEqual(
    (await deliveries(h, endpoint.id)).map((d) => [d.event_type, d.status]),
    [
      ['plan.created', 'delivered'],
      ['branch.updated', 'failed'],
    ],
  );
});

test('metrics: attempts by outcome, their durations and the backlog', async (t) => {
  const h = await build(t, { env: PRIVATE });
  const r = await receiver(t, () => 500);
  await createEndpoint(h, { url: r.url, events: ['*'] });
  await announce(h, [{ type: 'branch.created' }, { type: 'branch.created' }]);
  const metrics = new Metrics();
  await runAt(h, T0, { metrics });
  r.behave(() => 200);
  await runAt(h, at(T0, MINUTE), { metrics });
  const text = await metrics.registry.metrics();
  assert.match(text, /lending_webhook_attempts_total\{outcome="failed_attempt"\} 2/);
  assert.match(text, /lending_webhook_attempts_total\{outcome="delivered"\} 2/);
  assert.match(text, /lending_webhook_attempt_duration_seconds_count\{outcome="delivered"\} 2/);
  assert.match(text, /lending_webhook_attempt_duration_seconds_count\{outcome="failed"\} 2/);
  metrics.webhookBacklog(7);
  assert.match(await metrics.registry.metrics(), /lending_webhook_pending_deliveries 7/);
});

test('the job: started with the server’s jobs, it delivers a new event within seconds by itself', {
  // the job serves every business of its database: on the shared PostgreSQL test database it
  // would take other test files' deliveries
  skip: testDbKind() === 'postgres' ? 'embedded only (the job serves the whole database)' : false,
}, async (t) => {
  const h = await build(t, { env: { ...PRIVATE, WEBHOOKS: 'on' } });
  const r = await receiver(t);
  await createEndpoint(h, { url: r.url, events: ['*'] });
  const metrics = new Metrics();
  const runs: boolean[] = [];
  // a failed run is logged: kept here, so that a failure says why
  const failures: string[] = [];
  const log = Object.assign(Object.create(h.app.log), {
    error: (o: { err?: unknown }) => failures.push(String((o.err as Error)?.stack ?? o.err)),
  }) as typeof h.app.log;
  const stop = startWebhookDelivery({ db: h.db, config: h.config, log, clock: systemClock, metrics }, (run) => {
    runs.push(run.ok);
    metrics.job('webhooks', run);
  });
  t.after(stop);
  await announce(h, [{ type: 'branch.created' }]);
  for (let i = 0; i < 300 && r.received.length === 0; i++) await new Promise((res) => setTimeout(res, 20));
  assert.equal(r.received.length, 1);
  // (every assert here says what it checks: a failing assert.ok without a message makes Node parse
  // the transformed source to describe it, which under coverage took minutes)
  assert.ok(runs.length >= 1 && runs.every(Boolean), `every run succeeded: ${runs}; ${failures.join('\n')}`);
  assert.match(await metrics.registry.metrics(), /lending_job_last_success_timestamp_seconds\{job="webhooks"\}/);
  // WEBHOOKS=off: no job
  const none = startWebhookDelivery(
    { db: h.db, config: { ...h.config, webhooks: false }, log: h.app.log, clock: systemClock },
    () => assert.fail('ran'),
  );
  none();
});
