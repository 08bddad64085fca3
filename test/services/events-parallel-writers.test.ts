// Writers of one business commit in parallel (docs/events.md "Why a poller never misses an
// event"): a writing transaction of the business held open on another connection, its audited row
// and its event already written, does not hold back another write of the same business; the feed
// and the webhook dispatcher hand out what committed, never the open transaction's event, and
// hand that one out exactly once, after everything already handed out, when it commits.
// PostgreSQL only: the embedded database has one connection, so it cannot hold a transaction open
// while another commits (the race test in feed.test.ts runs on both).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { withActor } from '../../src/db/connection.ts';
import { flushEvents } from '../../src/db/repositories/events.ts';
import { emit } from '../../src/services/events.ts';
import { build, json, type Harness } from '../helpers/app.ts';
import { openTestDb, testDbKind } from '../helpers/db.ts';
import { P35, client, credit, plan } from '../helpers/book-in-cents.ts';
import { createEndpoint, deliveries, depsOf, receiver } from '../helpers/webhooks.ts';
import { deliverDue, dispatch } from '../../src/services/webhooks.ts';

async function feed(h: Harness, after: number): Promise<{ items: any[]; next_after: number }> {
  const res = await h.get(`/api/events?after=${after}&limit=100`);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

/** fn's result, or a failure naming `what` when it takes longer than `ms` */
async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} waited ${ms} ms: it is queued behind the open transaction`)),
      ms,
    );
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

test('a transaction of the business held open does not hold back its other writes, and the feed hands its event out once, when it commits', {
  skip: testDbKind() !== 'postgres' && 'one connection on the embedded database',
}, async (t) => {
  const h = await build(t, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  const bid = h.tenant.businessId;
  const r = await receiver(t);
  const hook = await createEndpoint(h, { url: `${r.url}/all`, events: ['*'] });
  const p = await plan(h, P35);
  const cr = (await credit(h, (await client(h)).id, { credit_config_id: p.id, amount: 1000 })).credit;
  const start = (await feed(h, 0)).next_after;
  const deps = depsOf(h);
  const scope = { businessId: bid };
  await dispatch(deps, scope);
  await deliverDue(deps, scope);

  // another process's writer: a client inserted (its audit row and audit count written by the
  // triggers) and its event written, as a use case does at its end; then it stays open
  const second = await openTestDb();
  let release!: () => void;
  const released = new Promise<void>((res) => (release = res));
  let written!: (id: string) => void;
  const wrote = new Promise<string>((res) => (written = res));
  const held = withActor(second.kysely, { actor: 'test:held' }, async (trx) => {
    const { rows } = await sql<{ id: string }>`
      INSERT INTO clients (business_id, dni, first_name) VALUES (${bid}, ${randomUUID().slice(0, 12)}, 'Held') RETURNING id`.execute(
      trx,
    );
    emit(trx, bid, 'client.created', { id: rows[0]!.id });
    await flushEvents(trx);
    written(rows[0]!.id);
    await released;
  });
  // whatever happens below, the open transaction ends before its pool closes
  t.after(async () => {
    release();
    await held.catch(() => {});
    await second.close();
  });
  const heldId = await wrote;

  // the same business's writes commit meanwhile: a payment, a client
  const [paid, other] = await within(
    10_000,
    'a write of the business',
    Promise.all([
      h.post(`/api/credits/${cr.id}/payments`, { amount: 10 }),
      h.post('/api/clients', { dni: '30999888', first_name: 'Otra' }),
    ]),
  );
  assert.equal(paid.statusCode, 201, paid.body);
  assert.equal(other.statusCode, 201, other.body);

  // the feed hands out what committed, numbered from where it was; not the open transaction's event
  const during = await feed(h, start);
  // (the two committed in either order)
  assert.deepEqual(
    during.items.map((e) => e.sequence),
    [start + 1, start + 2],
  );
  assert.deepEqual(during.items.map((e) => e.type).sort(), ['client.created', 'payment.created']);
  assert.ok(
    !during.items.some((e) => e.data.object.id === heldId),
    'holds: !during.items.some((e) => e.data.object.id === heldId)',
  );
  assert.equal(during.next_after, start + 2);
  assert.deepEqual((await feed(h, during.next_after)).items, [], 'nothing more while it is open');
  // so does the webhook job
  await dispatch(deps, scope);
  await deliverDue(deps, scope);
  assert.deepEqual(
    (await deliveries(h, hook.endpoint.id))
      .map((d) => d.sequence)
      .sort((a, b) => a - b)
      .slice(-2),
    [start + 1, start + 2],
  );
  assert.ok(
    !r.received.some((x) => x.event.data.object.id === heldId),
    'holds: !r.received.some((x) => x.event.data.object.id === heldId)',
  );

  // once it commits: its event, exactly once, after everything handed out before
  release();
  await held;
  const after = await feed(h, during.next_after);
  assert.deepEqual(
    after.items.map((e) => [e.sequence, e.type, e.data.object.id]),
    [[start + 3, 'client.created', heldId]],
  );
  assert.deepEqual((await feed(h, after.next_after)).items, []);
  assert.deepEqual(
    (await feed(h, start)).items.map((e) => e.id),
    [...during.items, ...after.items].map((e) => e.id),
    'a poller from the start sees the same, once each',
  );
  await dispatch(deps, scope);
  await deliverDue(deps, scope);
  const got = r.received.filter((x) => x.event.sequence > start).map((x) => x.event.sequence);
  assert.deepEqual(
    got.sort((a, b) => a - b),
    [start + 1, start + 2, start + 3],
    'each event delivered once',
  );
});
