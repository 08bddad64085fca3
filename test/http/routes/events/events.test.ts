// The event feed (docs/events.md): an event
// `{id, sequence, type, created_at, data: {object}}` for every change, written in the same
// transaction, `object` the resource as its own read returns it; `GET /api/events?after=&types=&limit=`
// → `{items, next_after}` oldest first, and a consumer polling with `after` never misses an event,
// even while writes commit out of order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, settableClock } from '../../../helpers/app.ts';
import { fileForm, png, pdf } from '../../../helpers/file-fixtures.ts';
import {
  RFC3339,
  UUID,
  client,
  credit,
  dailyRun,
  error,
  feed,
  json,
  lastSequence,
  objectOf,
  pay,
  plan,
  seq,
  sleep,
  status,
} from '../../../helpers/acceptance.ts';

const types = (events: any[]) => events.map((e) => e.type);

test('clients, plans and branches: one event per change, oldest first, with the resource as its read returns it', async (t) => {
  const h = await build(t);
  const c = await client(h, { first_name: 'Ana' });
  status(await h.put(`/api/clients/${c.id}`, { first_name: 'Ana María' }), 200);
  const p = await plan(h, { installments_count: 2 });
  status(await h.put(`/api/credit-configs/${p.id}`, { is_active: false }), 200);
  const b = json(await h.post('/api/branches', { name: 'Centro' }));
  status(await h.put(`/api/branches/${b.id}`, { name: 'Centro (norte)' }), 200);
  status(await h.del(`/api/branches/${b.id}`), 200);

  const events = await feed(h);
  assert.deepEqual(types(events), [
    'client.created',
    'client.updated',
    'plan.created',
    'plan.updated',
    'branch.created',
    'branch.updated',
    'branch.deleted',
  ]);
  for (const [i, e] of events.entries()) {
    assert.match(e.id, UUID);
    if (i > 0) assert.ok(seq(e) > seq(events[i - 1]), 'oldest first, sequences increasing');
    assert.match(e.created_at, RFC3339);
    assert.ok(e.data && typeof e.data.object === 'object', `data.object: ${JSON.stringify(e)}`);
  }
  assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'event ids are unique');

  // the object is the resource as its own read returns it, as of the change
  const created = objectOf(events[0], 'client');
  assert.equal(created.id, c.id);
  assert.equal(created.first_name, 'Ana');
  const clientRead = json(await h.get(`/api/clients/${c.id}`)).client;
  assert.deepEqual(objectOf(events[1], 'client'), clientRead, 'client.updated carries the client as read now');
  assert.deepEqual(objectOf(events[3]), json(await h.get(`/api/credit-configs/${p.id}`)), 'plan.updated = GET plan');
  assert.equal(objectOf(events[2]).is_active, true);
  assert.equal(objectOf(events[3]).is_active, false);
  const branchRead = json(await h.get('/api/branches')).find((x: any) => x.id === b.id);
  assert.deepEqual(objectOf(events[6]), branchRead, 'branch.deleted = the branch as listed, deleted_at set');
  assert.ok(objectOf(events[6]).deleted_at, 'holds: objectOf(events[6]).deleted_at');
  assert.equal(objectOf(events[5]).name, 'Centro (norte)');

  // paging: limit, after, next_after = the last item's sequence
  const first = json(await h.get('/api/events?after=0&limit=2'));
  assert.deepEqual(
    first.items.map((e: any) => e.id),
    events.slice(0, 2).map((e) => e.id),
  );
  assert.equal(Number(first.next_after), seq(events[1]));
  const rest = json(await h.get(`/api/events?after=${first.next_after}&limit=100`));
  assert.deepEqual(
    rest.items.map((e: any) => e.id),
    events.slice(2).map((e) => e.id),
  );
  // nothing newer: an empty page, and a next_after to poll again with that does not go back
  const tail = json(await h.get(`/api/events?after=${seq(events[6])}`));
  assert.deepEqual(tail.items, []);
  assert.ok(Number(tail.next_after) >= seq(events[6]), `next_after on an empty page: ${tail.next_after}`);

  // types filter
  const only = json(await h.get('/api/events?after=0&types=plan.created,branch.deleted'));
  assert.deepEqual(types(only.items), ['plan.created', 'branch.deleted']);

  // a read key may read the feed; no key may not
  const byRead = await h.get('/api/events?after=0', h.tenant.readKey);
  status(byRead, 200);
  assert.equal(json(byRead).items.length, events.length);
  error(await h.get('/api/events?after=0', null), 401, 'unauthorized');

  // another business sees none of these, and its own writes never show here
  const other = await h.newTenant();
  assert.deepEqual(await feed(h, { key: other.fullKey }), []);
  status(await h.post('/api/clients', { dni: '30111222' }, other.fullKey), 201);
  assert.equal((await feed(h, { key: other.fullKey })).length, 1);
  assert.equal((await feed(h)).length, events.length);
});

test('credits: credit.created, payment.created, credit.status_changed with previous_status, payment.reversed, write-off', async (t) => {
  const h = await build(t, { clock: settableClock('2025-03-10') });
  const p = await plan(h, { installments_count: 2, interest_rate: 0.2 });
  const c = await client(h);
  const base = await lastSequence(h);
  // 1000 at 20 % flat in 2 installments: 600 + 600
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2025-03-10' });
  const id = d.credit.id;
  const first = await pay(h, id, { amount: 100 });
  const last = await pay(h, id, { amount: 1100 });
  assert.equal(last.credit.status, 'closed');
  const list = json(await h.get(`/api/credits/${id}/payments`));
  const byAmount = (a: number) => list.find((x: any) => x.amount === a);
  status(await h.post(`/api/credits/${id}/payments/${byAmount(1100).id}/reverse`, { reason: 'bounced transfer' }), 200);

  const other = await credit(h, c.id, { credit_config_id: p.id, amount: 500, start_date: '2025-03-10' });
  status(await h.post(`/api/credits/${other.credit.id}/write-off`, { reason: 'fraud' }), 200);

  const events = await feed(h, { after: base });
  const of = (type: string) => events.filter((e) => e.type === type);

  const created = of('credit.created');
  assert.equal(created.length, 2);
  assert.equal(objectOf(created[0], 'credit').id, id);
  assert.equal(objectOf(created[0], 'credit').status, 'active');
  assert.equal(objectOf(created[0], 'credit').amount, 1000);

  const paid = of('payment.created');
  assert.deepEqual(
    paid.map((e) => [objectOf(e).id, objectOf(e).amount]),
    [
      [byAmount(100).id, 100],
      [byAmount(1100).id, 1100],
    ],
    'payment.created carries the payment as GET /api/credits/{id}/payments lists it',
  );
  assert.equal(first.credit.status, 'active');

  const reversed = of('payment.reversed');
  assert.equal(reversed.length, 1);
  assert.equal(objectOf(reversed[0]).id, byAmount(1100).id);
  assert.ok(objectOf(reversed[0]).reversed_at, 'the reversed payment carries reversed_at');
  assert.equal(objectOf(reversed[0]).reversal_reason, 'bounced transfer');

  // closed by the second payment, reopened by the reversal, the other credit written off
  const changes = of('credit.status_changed').map((e) => [
    objectOf(e, 'credit').id,
    e.data.previous_status,
    objectOf(e, 'credit').status,
  ]);
  assert.deepEqual(changes, [
    [id, 'active', 'closed'],
    [id, 'closed', 'active'],
    [other.credit.id, 'active', 'written_off'],
  ]);
  // each event comes after the one of the change that preceded it
  const at = (e: any) => events.indexOf(e);
  assert.ok(at(paid[1]) < at(reversed[0]), 'holds: at(paid[1]) < at(reversed[0])');
  assert.ok(at(created[1]) > at(reversed[0]), 'holds: at(created[1]) > at(reversed[0])');
});

test('files: file.created for an upload by key and by upload link, file.deleted', async (t) => {
  const h = await build(t);
  const c = await client(h);
  const base = await lastSequence(h);
  const form = fileForm('id-card.png', png());
  const up = await h.req({
    method: 'POST',
    url: `/api/clients/${c.id}/files`,
    payload: form.payload,
    headers: { 'content-type': form.contentType },
  });
  status(up, 201);
  const link = json(await h.post(`/api/clients/${c.id}/upload-sessions`, {}));
  const byLink = fileForm('payslip.pdf', pdf());
  const viaLink = await h.app.inject({
    method: 'POST',
    url: `/upload/${link.token}`,
    payload: byLink.payload,
    headers: { 'content-type': byLink.contentType },
  });
  status(viaLink, 201);
  status(await h.del(`/api/clients/${c.id}/files/${json(up).id}`), 200);

  const events = (await feed(h, { after: base })).filter((e) => e.type.startsWith('file.'));
  assert.deepEqual(types(events), ['file.created', 'file.created', 'file.deleted']);
  assert.deepEqual(objectOf(events[0]), json(up), 'file.created carries the ClientFile the upload answered');
  assert.deepEqual(objectOf(events[1]), json(viaLink));
  assert.equal(objectOf(events[2]).id, json(up).id);
  // never a storage path or an upload token in an event
  const text = JSON.stringify(events);
  assert.ok(!text.includes(link.token), 'the upload token is not in events');
});

test('the daily run: installment.overdue the day an installment becomes late (once), punitory.posted at the month close', async (t) => {
  const clock = settableClock('2025-01-10');
  const h = await build(t, { clock });
  // 1000 at 35 % flat in 3 installments of 450, due 02-09, 03-09, 04-09; 0.5 % a day punitory
  const p = await plan(h, {
    installments_count: 3,
    interest_rate: 0.35,
    days_until_first_payment: 30,
    cut_type: 'fixed',
    daily_punitory_rate: 0.005,
  });
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2025-01-10' });
  const [i1, i2] = d.installments;
  assert.deepEqual(
    d.installments.map((i: any) => i.due_date),
    ['2025-02-09', '2025-03-09', '2025-04-09'],
  );
  const base = await lastSequence(h);

  // due today is not late: nothing
  clock.set('2025-02-09');
  await dailyRun(h);
  assert.deepEqual(
    (await feed(h, { after: base })).filter((e) => e.type === 'installment.overdue'),
    [],
    'due today is not overdue',
  );

  // ASSUMPTION: the daily run is what notices an installment became late; run on that day
  clock.set('2025-02-10');
  await dailyRun(h);
  let overdue = (await feed(h, { after: base })).filter((e) => e.type === 'installment.overdue');
  assert.equal(overdue.length, 1, JSON.stringify(overdue));
  assert.equal(objectOf(overdue[0]).id, i1.id);
  assert.equal(objectOf(overdue[0]).credit_id, d.credit.id);
  assert.equal(objectOf(overdue[0]).overdue, true);

  // the next run, the month close: Feb's punitory posted for #1 (10..28 Feb, 19 days × 2.25 = 42.75)
  clock.set('2025-03-01');
  await dailyRun(h);
  const posted = (await feed(h, { after: base })).filter((e) => e.type === 'punitory.posted');
  assert.ok(posted.length >= 1, 'punitory.posted at the month close');
  assert.ok(
    posted.some((e) => JSON.stringify(e.data.object).includes(i1.id)),
    `the posting names installment #1: ${JSON.stringify(posted)}`,
  );
  const ledger = json(await h.get(`/api/credits/${d.credit.id}/ledger`));
  assert.ok(
    ledger.some((e: any) => e.type === 'punitory' && e.amount === 42.75),
    JSON.stringify(ledger),
  );

  // #2 becomes late on 03-10; #1 is not announced again
  clock.set('2025-03-10');
  await dailyRun(h);
  overdue = (await feed(h, { after: base })).filter((e) => e.type === 'installment.overdue');
  assert.deepEqual(
    overdue.map((e) => objectOf(e).id),
    [i1.id, i2.id],
    'one installment.overdue per installment',
  );
});

test('an event is written with its change: refused writes leave none', async (t) => {
  const h = await build(t);
  const p = await plan(h);
  const c = await client(h, { dni: '20999888' });
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 100 });
  const base = await lastSequence(h);

  error(await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 100.01 }), 422, 'unprocessable');
  error(await h.post('/api/clients', { dni: '20999888' }), 409, 'conflict');
  error(await h.post('/api/clients', { dni: 20999889 }), 400, 'validation_failed');
  error(await h.put(`/api/credit-configs/${p.id}`, { installments_count: 13 }), 400, 'validation_failed');
  status(await h.post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: -1 }), [400, 422]);
  assert.deepEqual(await feed(h, { after: base }), []);

  // and an accepted one right after still gets the next sequence
  await pay(h, d.credit.id, { amount: 10 });
  const after = await feed(h, { after: base });
  assert.deepEqual(types(after), ['payment.created']);
});

test('bad feed parameters are 400 validation_failed', async (t) => {
  const h = await build(t);
  for (const q of ['after=abc', 'after=1.5', 'limit=0', 'limit=abc']) {
    error(await h.get(`/api/events?${q}`), 400, 'validation_failed', q);
  }
});

test('the feed under concurrent writers: a poller with after sees every event exactly once, sequences increasing', {
  timeout: 300_000,
}, async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 12 });
  const owners = await Promise.all(Array.from({ length: 6 }, () => client(h)));
  const credits = [];
  for (const o of owners) credits.push(await credit(h, o.id, { credit_config_id: p.id, amount: 1200 }));
  const base = await lastSequence(h);

  let writing = true;
  const seen: any[] = [];
  const poller = (async () => {
    let after = base;
    for (;;) {
      const done = !writing;
      const res = await h.get(`/api/events?after=${after}&limit=7`);
      status(res, 200, 'poll');
      const page = json(res);
      seen.push(...page.items);
      if (page.items.length) after = Number(page.next_after);
      // after the writers finished, one more empty page means the poller has caught up
      if (done && page.items.length === 0) return;
      await sleep(page.items.length ? 0 : 2);
    }
  })();

  // short writes (a client) and long ones (a credit of 12 installments, a payment) interleaved, so
  // that transactions begun later commit earlier
  const N = 60;
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < N; i++) {
    writes.push(h.post('/api/clients', { dni: `7${String(i).padStart(7, '0')}`, first_name: `w${i}` }));
    if (i % 10 === 0) writes.push(h.put(`/api/clients/${owners[i / 10]!.id}`, { last_name: `u${i}` }));
    if (i % 4 === 0)
      writes.push(
        h.post(`/api/clients/${owners[i % owners.length]!.id}/credits`, { credit_config_id: p.id, amount: 1200 }),
      );
    if (i % 5 === 0) {
      // two payments racing on one credit: the second waits for the first, others commit around them
      const cr = credits[(i / 5) % credits.length]!.credit.id;
      writes.push(h.post(`/api/credits/${cr}/payments`, { amount: 10 }));
    }
    if (i % 10 === 0) writes.push(h.post('/api/branches', { name: `b${i}` }));
  }
  const results = (await Promise.all(writes)) as { statusCode: number; body: string }[];
  for (const r of results) assert.ok([200, 201].includes(r.statusCode), `a write failed: ${r.statusCode} ${r.body}`);
  writing = false;
  await poller;

  // exactly once
  const ids = seen.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length, 'no event seen twice');
  // in increasing sequence
  for (let i = 1; i < seen.length; i++)
    assert.ok(seq(seen[i]) > seq(seen[i - 1]), `sequence ${seq(seen[i])} after ${seq(seen[i - 1])}`);
  // every event: what the poller saw is what a full read finds afterwards
  const all = await feed(h, { after: base });
  assert.deepEqual(
    ids,
    all.map((e) => e.id),
    'the poller saw every event of the feed, in its order',
  );
  const count = (type: string) => all.filter((e) => e.type === type).length;
  assert.equal(count('client.created'), N);
  assert.equal(count('client.updated'), N / 10);
  assert.equal(count('credit.created'), N / 4);
  assert.equal(count('payment.created'), N / 5);
  assert.equal(count('branch.created'), N / 10);
});
