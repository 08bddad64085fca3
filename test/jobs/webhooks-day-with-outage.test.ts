// A whole day of events, end to end: a receiver on localhost gets every event of a scripted day (a credit,
// payments, a reversal, a daily run, an upload through a link) with valid signatures, survives an
// outage through the retries, and a poller of the feed ends with the same events. Both databases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { build, json, settableClock, type Harness } from '../helpers/app.ts';
import { P35, accrue, client, credit, pay, plan } from '../helpers/book-in-cents.ts';
import { createEndpoint, receiver, runAt, type Received } from '../helpers/webhooks.ts';
import { uploadByLink } from '../helpers/files.ts';
import { png } from '../helpers/file-fixtures.ts';

/** The guide's check (docs/webhooks.md): t=<seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>. */
function validSignature(secret: string, header: string | undefined, body: string): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=') as [string, string]));
  if (!parts.t || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function feed(h: Harness): Promise<any[]> {
  const out: any[] = [];
  for (let after = 0; ; ) {
    const page = json(await h.get(`/api/events?after=${after}&limit=100`));
    if (page.items.length === 0) return out;
    out.push(...page.items);
    after = page.next_after;
  }
}

test('a scripted day reaches a webhook receiver, through an outage, as the feed tells it', async (t) => {
  const clock = settableClock('2026-03-01');
  const h = await build(t, { clock, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  let down = false;
  const accepted: Received[] = [];
  const rx = await receiver(t, (r) => {
    if (down) return 500;
    accepted.push(r);
    return 200;
  });
  const { endpoint, secret } = await createEndpoint(h, { url: rx.url, events: ['*'], description: 'ERP' });
  const deliverAt = (now: Date) => runAt(h, now);

  // the morning: a plan, a client, a credit; delivered as they happen
  const p = await plan(h, P35);
  const c = await client(h);
  const cr = (await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' })).credit;
  await deliverAt(clock());
  assert.deepEqual(
    accepted.map((r) => r.event.type),
    ['plan.created', 'client.created', 'credit.created'],
  );

  // a month later the receiver is down: payments, a reversal, the daily run, an upload
  clock.set('2026-04-01');
  down = true;
  const first = await pay(h, cr.id, { amount: 200 });
  await pay(h, cr.id, { amount: 100 });
  const reversed = await h.post(`/api/credits/${cr.id}/payments/${first.ledgerEntries.at(-1).payment_id}/reverse`, {
    reason: 'cheque rechazado',
  });
  assert.equal(reversed.statusCode, 200, reversed.body);
  const run = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(run.code, 0, run.err);
  const link = await h.post(`/api/clients/${c.id}/upload-sessions`, {});
  assert.equal(link.statusCode, 201, link.body);
  const up = await uploadByLink(h, json(link).token, 'dni.png', png());
  assert.equal(up.statusCode, 201, up.body);
  const outage = await deliverAt(clock());
  assert.ok(outage.attempted > 0 && outage.delivered === 0, JSON.stringify(outage));
  const failing = json(await h.get(`/api/webhook-endpoints/${endpoint.id}/deliveries?limit=100`)).items;
  assert.ok(
    failing.some((d: any) => d.status_code === 500 && d.next_attempt_at !== null),
    'some d of failing: d.status_code === 500 && d.next_attempt_at !== null',
  );

  // back up: the retries deliver everything, each credit's events in order
  down = false;
  for (let i = 0, t0 = clock().getTime(); i < 16; i++) {
    await deliverAt(new Date(t0 + 2 ** i * 60_000));
    const pending = json(await h.get(`/api/webhook-endpoints/${endpoint.id}/deliveries?status=pending&limit=100`));
    if (pending.items.length === 0) break;
  }

  const events = await feed(h);
  const types = new Set(events.map((e) => e.type));
  for (const type of [
    'credit.created',
    'payment.created',
    'payment.reversed',
    'punitory.posted',
    'installment.overdue',
    'file.created',
  ])
    assert.ok(types.has(type), `the day has a ${type} event`);

  // every event once (at least once: a repeat would be the same event id), signed, as the feed has it
  const got = new Map<string, Received>();
  for (const r of accepted) {
    assert.ok(validSignature(secret, r.headers['lending-signature'] as string, r.body), 'signature');
    assert.equal(r.headers['lending-event-id'], r.event.id);
    assert.equal(r.headers['lending-event-type'], r.event.type);
    if (!got.has(r.event.id)) got.set(r.event.id, r);
  }
  assert.deepEqual([...got.keys()].sort(), events.map((e) => e.id).sort(), 'the receiver got every event of the feed');
  for (const e of events) assert.deepEqual(JSON.parse(got.get(e.id)!.body), e, 'the body is the feed item');

  // a credit's events were accepted in the order they happened
  const ofCredit = accepted.filter(
    (r) => (r.event.data.object as any).credit_id === cr.id || r.event.data.object.id === cr.id,
  );
  const seqs = ofCredit.map((r) => r.event.sequence);
  assert.deepEqual(
    seqs,
    [...seqs].sort((a, b) => a - b),
  );
  assert.ok(seqs.length >= 5, 'holds: seqs.length >= 5');

  // nothing is left pending, and the endpoint is still enabled
  const left = json(await h.get(`/api/webhook-endpoints/${endpoint.id}/deliveries?status=pending&limit=100`));
  assert.equal(left.items.length, 0);
  assert.equal(json(await h.get(`/api/webhook-endpoints/${endpoint.id}`)).enabled ?? true, true);
});
