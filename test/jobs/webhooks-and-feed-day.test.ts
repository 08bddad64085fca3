// A whole day of events, end to end: a test receiver on localhost gets every event of a scripted day (credit,
// payments, a reversal, a daily run, an upload) with valid signatures, survives a receiver outage
// through retries, and a poller of the feed ends with the same events; both databases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, settableClock } from '../helpers/app.ts';
import { fileForm, png } from '../helpers/file-fixtures.ts';
import {
  client,
  credit,
  dailyRun,
  deliveries,
  endpoint,
  eventually,
  feed,
  json,
  localServer,
  pay,
  plan,
  seq,
  sleep,
  startDelivery,
  status,
  verifySignature,
  type Received,
} from '../helpers/acceptance.ts';

const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const firstOfNextMonth = (date: string) => {
  const d = new Date(`${date}T00:00:00Z`);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
};
const ok2xx = (r: Received) => r.status >= 200 && r.status < 300;
const eventId = (r: Received) => String(r.headers['lending-event-id']);

test('a scripted day reaches a local receiver, signed, through an outage, and matches the feed', {
  timeout: 600_000,
}, async (t) => {
  // the app's clock, moved by hand: today (a little ahead of the real time), then later days
  const clock = settableClock(new Date(Date.now() + 2000));
  const today = clock().toISOString().slice(0, 10);
  const h = await build(t, { clock, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  let down = false;
  const rx = await localServer(t, () => (down ? 503 : 200));
  const { endpoint: ep, secret } = await endpoint(h, `${rx.url}/lending/events`, ['*']);
  startDelivery(t, h);

  // a poller of the feed, running the whole time
  let polling = true;
  const polled: any[] = [];
  const poller = (async () => {
    let after = 0;
    for (;;) {
      const done = !polling;
      const res = await h.get(`/api/events?after=${after}&limit=10`);
      status(res, 200, 'poll');
      const page = json(res);
      polled.push(...page.items);
      if (page.items.length) after = Number(page.next_after);
      if (done && page.items.length === 0) return;
      await sleep(page.items.length ? 0 : 20);
    }
  })();

  // the morning: a plan, a client, a credit (1000 at 35 % flat in 3 × 450, the first due in 30
  // days), the client's payslip through an upload link
  const p = await plan(h, {
    installments_count: 3,
    interest_rate: 0.35,
    days_until_first_payment: 30,
    cut_type: 'fixed',
    daily_punitory_rate: 0.005,
  });
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: today });
  const firstDue: string = d.installments[0].due_date;
  const link = json(await h.post(`/api/clients/${c.id}/upload-sessions`, {}));
  const f = fileForm('payslip.png', png());
  status(
    await h.app.inject({
      method: 'POST',
      url: `/upload/${link.token}`,
      payload: f.payload,
      headers: { 'content-type': f.contentType },
    }),
    201,
    'upload by link',
  );
  await eventually('the morning delivered', () => rx.received.filter(ok2xx).length >= 4);

  // the receiver goes down; the afternoon's payments and a reversal happen meanwhile
  down = true;
  await pay(h, d.credit.id, { amount: 100 });
  const second = await pay(h, d.credit.id, { amount: 200 });
  const paymentId = second.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;
  status(await h.post(`/api/credits/${d.credit.id}/payments/${paymentId}/reverse`, { reason: 'bounced' }), 200);
  await eventually('a delivery refused during the outage', () => rx.received.some((r) => r.status === 503));
  // and its outcome recorded, its next attempt set from the time it failed (moving the clock
  // before that would set the next attempt hours later, past a clock that moves no more)
  await eventually('the refusal recorded', async () =>
    (await deliveries(h, ep.id)).some((x) => x.status_code === 503 && x.next_attempt_at),
  );

  // back up; the retries come due as time passes (6 hours later)
  down = false;
  clock.set(new Date(clock().getTime() + 6 * 3_600_000));
  const dayOne = await feed(h);
  await eventually(
    'every event of the day delivered after the outage',
    () => dayOne.every((e) => rx.received.some((r) => ok2xx(r) && eventId(r) === e.id)),
    120_000,
  );

  // the daily runs: #1 becomes late the day after its due date; that month's punitory is posted
  // at the month close (the run on the 1st of the next month)
  const lateDay = addDays(firstDue, 1);
  clock.set(lateDay);
  await dailyRun(h);
  clock.set(firstOfNextMonth(lateDay));
  await dailyRun(h);

  const all = await feed(h);
  const types = new Set(all.map((e) => e.type));
  for (const type of [
    'plan.created',
    'client.created',
    'credit.created',
    'file.created',
    'payment.created',
    'payment.reversed',
    'installment.overdue',
    'punitory.posted',
  ])
    assert.ok(types.has(type), `${type} in the feed: ${[...types]}`);
  assert.equal(all.filter((e) => e.type === 'payment.created').length, 2);

  await eventually(
    'every event delivered',
    () => all.every((e) => rx.received.some((r) => ok2xx(r) && eventId(r) === e.id)),
    120_000,
  );
  polling = false;
  await poller;

  // the poller ends with the same events, each once, in order
  assert.deepEqual(
    polled.map((e) => e.id),
    all.map((e) => e.id),
  );
  // the receiver: the same set, every request signed, the event as body
  const delivered = new Set(rx.received.filter(ok2xx).map(eventId));
  assert.deepEqual([...delivered].sort(), all.map((e) => e.id).sort());
  const byId = new Map(all.map((e) => [e.id, e]));
  for (const r of rx.received) {
    verifySignature(secret, r.headers['lending-signature'], r.raw);
    assert.deepEqual(r.body, byId.get(eventId(r)));
    assert.equal(r.headers['lending-event-type'], r.body.type);
  }
  // the outage was survived by retrying: some event was refused, then accepted
  assert.ok(
    rx.received.some((r) => r.status === 503 && rx.received.some((x) => ok2xx(x) && eventId(x) === eventId(r))),
    'an event answered 503 was delivered again and accepted',
  );
  // the credit's events were accepted in their order
  const creditTypes = new Set([
    'credit.created',
    'payment.created',
    'payment.reversed',
    'installment.overdue',
    'punitory.posted',
  ]);
  const firstAccepted = [
    ...new Set(rx.received.filter((r) => ok2xx(r) && creditTypes.has(r.body.type)).map(eventId)),
  ].map((id) => seq(byId.get(id)));
  assert.deepEqual(
    firstAccepted,
    [...firstAccepted].sort((a, b) => a - b),
    "one credit's events in order",
  );
});
