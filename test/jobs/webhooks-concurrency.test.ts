// Delivery work shared by several processes (docs/webhooks.md#running-it): two dispatcher/sender
// instances, each with its own database connections, run at once while writers add events; a
// healthy receiver gets every event of every endpoint exactly once, each credit's in order. And a
// sender process killed while its request is in flight: the delivery is sent again once the lease
// has run out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { build } from '../helpers/app.ts';
import { openTestDb, testDbKind } from '../helpers/db.ts';
import { announce, at, createEndpoint, deliveries, receiver, type Received } from '../helpers/webhooks.ts';
import { deliverDue, dispatch, leaseMs, type WebhookDeps } from '../../src/services/webhooks.ts';
import type { Database } from '../../src/db/connection.ts';

// a receiver on loopback; a timeout no loaded test machine reaches (the timeout test sets its own)
const PRIVATE = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '60000' };

test('two instances at once, while events are written: each event reaches each endpoint once, in order per credit', async (t) => {
  const h = await build(t, { env: PRIVATE });
  // on PostgreSQL the second instance has a pool of its own, as another process would; embedded,
  // both share the one session (one process owns the data directory)
  let second: Database = h.db;
  if (testDbKind() === 'postgres') {
    second = await openTestDb();
    t.after(() => second.close());
  }
  const r = await receiver(t, () => (Math.random() < 0.5 ? 200 : 204));
  const all = await createEndpoint(h, { url: `${r.url}/all`, events: ['*'] });
  const payments = await createEndpoint(h, { url: `${r.url}/payments`, events: ['payment.created'] });

  const credits = Array.from({ length: 8 }, () => crypto.randomUUID());
  const perWriter = 15;
  const writers = credits.map(async (credit, w) => {
    for (let i = 0; i < perWriter; i++)
      await announce(h, [
        { type: i === 0 ? 'credit.created' : 'payment.created', credit, object: { credit_id: credit, n: i, w } },
      ]);
  });
  const expected = { all: credits.length * perWriter, payments: credits.length * (perWriter - 1) };

  let writing = true;
  const instance = async (db: Database) => {
    const deps: WebhookDeps = { db, config: h.config };
    const scope = { businessId: h.tenant.businessId };
    for (let i = 0; i < 2000; i++) {
      const wasWriting = writing;
      await dispatch(deps, scope);
      const pass = await deliverDue(deps, scope);
      if (!wasWriting && pass.attempted === 0 && r.received.length >= expected.all + expected.payments) return;
      if (pass.attempted === 0) await new Promise((res) => setTimeout(res, 5));
    }
    assert.fail('the instances did not finish');
  };
  const instances = [instance(h.db), instance(second)];
  await Promise.all(writers);
  writing = false;
  await Promise.all(instances);

  const at = (path: string) => r.received.filter((x) => x.url === `/hooks/${path}`);
  for (const [path, n] of [
    ['all', expected.all],
    ['payments', expected.payments],
  ] as const) {
    const got = at(path);
    const ids = got.map((x) => x.event.id);
    assert.equal(new Set(ids).size, ids.length, `${path}: no event twice`);
    assert.equal(ids.length, n, `${path}: every event`);
    // per credit, in sequence order
    for (const credit of credits) {
      const seqs = got
        .filter((x: Received) => (x.event.data.object as { credit_id?: string }).credit_id === credit)
        .map((x) => x.event.sequence);
      assert.equal(seqs.length, path === 'all' ? perWriter : perWriter - 1);
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
        `${path}: credit ${credit} in order`,
      );
    }
  }
  for (const ep of [all.endpoint, payments.endpoint]) {
    const list = await deliveries(h, ep.id, '&status=delivered');
    assert.ok(
      list.every((d) => d.attempt === 1),
      'one attempt each',
    );
  }
  assert.deepEqual(await deliveries(h, all.endpoint.id, '&status=pending'), []);
});

test('a sender process killed while its request is in flight: once its lease has run out, another sends the delivery', {
  skip: testDbKind() === 'postgres' ? false : 'PostgreSQL only: a second process needs a database server',
}, async (t) => {
  const h = await build(t, { env: PRIVATE });
  let first: (() => void) | null = null;
  const inFlight = new Promise<void>((resolve) => (first = resolve));
  const r = await receiver(t, () => {
    if (r.received.length === 1) {
      first!();
      return 'hang';
    }
    return 200;
  });
  const { endpoint } = await createEndpoint(h, { url: r.url, events: ['*'] });
  await announce(h, [{ type: 'branch.created' }]);
  const scope = { businessId: h.tenant.businessId };
  const now = new Date();
  await dispatch({ db: h.db, config: h.config }, { ...scope, now });

  // the sender: another process on the same database, sending what is due at `now`
  const script = `
      import { openPostgres } from './src/db/connection.ts';
      import { deliverDue } from './src/services/webhooks.ts';
      const db = await openPostgres(process.env.TEST_DATABASE_URL);
      await deliverDue({ db, config: { webhookAllowPrivate: true, webhookTimeoutMs: 60000 } },
        { now: new Date(${now.getTime()}), businessId: '${h.tenant.businessId}' });
    `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, NODE_TEST_CONTEXT: undefined },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await inFlight;
  child.kill('SIGKILL');
  await exited;

  let [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'pending');
  assert.equal(d!.attempt, 1, 'the killed sender had counted its attempt');
  const lease = leaseMs(60_000);
  assert.equal(Date.parse(d!.next_attempt_at!), now.getTime() + lease, 'and committed its lease');
  const deps = { db: h.db, config: h.config };
  assert.equal((await deliverDue(deps, { ...scope, now: at(now, lease - 1) })).attempted, 0);
  assert.equal((await deliverDue(deps, { ...scope, now: at(now, lease) })).delivered, 1);
  [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'delivered');
  assert.equal(d!.attempt, 2);
  assert.equal(r.received.length, 2);
  assert.equal(r.received[1]!.event.id, r.received[0]!.event.id);
});
