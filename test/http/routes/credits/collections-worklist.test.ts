// Contact notes, collectors and the collections worklist's filters and orders, through HTTP
// (docs/collections.md, docs/api.md "Collections worklist").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { build, json, settableClock } from '../../../helpers/app.ts';
import { newUser, sessionOf, signIn, userSession } from '../../../helpers/sessions.ts';
import { credit, pay, plan } from '../../../helpers/book-in-cents.ts';

const ONE = { installments_count: 1, days_until_first_payment: 30 };

async function named(h: any, first_name: string, last_name: string) {
  const res = await h.post('/api/clients', { dni: String(randomInt(10_000_000, 99_999_999)), first_name, last_name });
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

test('notes: newest first, paged; a credit of another client is 422; an unknown client 404', async (t) => {
  const clock = settableClock('2026-02-10');
  const h = await build(t, { clock });
  const p = await plan(h, ONE);
  const ana = await named(h, 'Ana', 'García');
  const bea = await named(h, 'Bea', 'López');
  const d = await credit(h, ana.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-01-01' });
  const creditId = d.credit.id;
  const ids: string[] = [];
  for (const [i, channel] of (['call', 'visit', 'whatsapp', 'email', 'sms'] as const).entries()) {
    const res = await h.post(`/api/clients/${ana.id}/notes`, {
      channel,
      outcome: `contact ${i + 1}`,
      ...(i === 0 ? { credit_id: creditId } : {}),
    });
    assert.equal(res.statusCode, 201, res.body);
    const n = json(res);
    assert.equal(n.channel, channel);
    assert.equal(n.client_id, ana.id);
    assert.equal(n.credit_id, i === 0 ? creditId : null);
    ids.push(n.id);
  }
  const page1 = json(await h.get(`/api/clients/${ana.id}/notes?limit=2`));
  assert.equal(page1.total, 5);
  assert.deepEqual(
    page1.items.map((n: any) => n.outcome),
    ['contact 5', 'contact 4'],
  );
  const page3 = json(await h.get(`/api/clients/${ana.id}/notes?limit=2&offset=4`));
  assert.deepEqual(
    page3.items.map((n: any) => n.id),
    [ids[0]],
  );
  assert.equal(json(await h.get(`/api/clients/${bea.id}/notes`)).total, 0);

  const bad = await h.post(`/api/clients/${bea.id}/notes`, { channel: 'call', outcome: 'x', credit_id: creditId });
  assert.equal(bad.statusCode, 422, bad.body);
  assert.equal(json(bad).details[0].path, '/credit_id');
  assert.equal((await h.post(`/api/clients/${ana.id}/notes`, { channel: 'fax', outcome: 'x' })).statusCode, 400);
  assert.equal((await h.post(`/api/clients/${ana.id}/notes`, { channel: 'call', outcome: '' })).statusCode, 400);
  assert.equal((await h.post(`/api/clients/${ana.id}/notes`, { channel: 'call', outcome: '   ' })).statusCode, 422);
  const t2 = await h.newTenant();
  assert.equal((await h.get(`/api/clients/${ana.id}/notes`, t2.fullKey)).statusCode, 404);
  assert.equal(
    (await h.post(`/api/clients/${ana.id}/notes`, { channel: 'call', outcome: 'x' }, t2.fullKey)).statusCode,
    404,
  );
  assert.equal(json(await h.get(`/api/clients/${ana.id}/notes`)).total, 5);
});

test('collector: a user of the business (another business’s is 422), null takes it away; collector=me with a session', async (t) => {
  const clock = settableClock('2026-02-10');
  const h = await build(t, { clock });
  const p = await plan(h, ONE);
  const ana = await named(h, 'Ana', 'García');
  const bea = await named(h, 'Bea', 'López');
  const a = (await credit(h, ana.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-01-01' })).credit;
  const b = (await credit(h, bea.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-01-01' })).credit;
  assert.equal(a.collector_id, null);
  const me = await newUser(h, h.tenant.businessId, 'employee');
  const other = await h.newTenant();
  const stranger = await newUser(h, other.businessId, 'employee');

  const refused = await h.put(`/api/credits/${a.id}/collector`, { user_id: stranger.id });
  assert.equal(refused.statusCode, 422, refused.body);
  assert.equal(json(refused).details[0].path, '/user_id');
  const res = await h.put(`/api/credits/${a.id}/collector`, { user_id: me.id });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).collector_id, me.id);
  // the credit's reads carry it, the SQL documents too
  assert.equal(json(await h.get(`/api/credits/${a.id}`)).credit.collector_id, me.id);
  const credits = json(await h.get(`/api/clients/${ana.id}/credits`));
  assert.equal(credits[0].collector_id, me.id);
  assert.equal(json(await h.get(`/api/clients/${ana.id}`)).credits[0].collector_id, me.id);
  assert.equal((await h.put(`/api/credits/${a.id}/collector`, { user_id: 'me' })).statusCode, 400);
  assert.equal((await h.put(`/api/credits/${a.id}/collector`, {})).statusCode, 400);
  assert.equal((await h.put(`/api/credits/${a.id}/collector`, { user_id: me.id }, other.fullKey)).statusCode, 404);

  const session = sessionOf(me.id, me.email, await signIn(h, me.email));
  const mine = await h.req({ method: 'GET', url: '/api/installments?collector=me', key: null, headers: session.read });
  assert.equal(mine.statusCode, 200, mine.body);
  assert.deepEqual(
    json(mine).items.map((i: any) => i.credit_id),
    [a.id],
  );
  assert.equal(json(mine).items[0].collector_id, me.id);
  // with an API key there is no "me"
  const keyMe = await h.get('/api/installments?collector=me');
  assert.equal(keyMe.statusCode, 422, keyMe.body);
  assert.deepEqual(
    json(await h.get(`/api/installments?collector=${me.id}`)).items.map((i: any) => i.credit_id),
    [a.id],
  );
  assert.deepEqual(
    json(await h.get('/api/installments?collector=none')).items.map((i: any) => i.credit_id),
    [b.id],
  );
  assert.equal((await h.get('/api/installments?collector=someone')).statusCode, 400);

  // an employee may not name collectors (admins do)
  const employee = await userSession(h, h.tenant.businessId, 'employee');
  const denied = await h.req({
    method: 'PUT',
    url: `/api/credits/${b.id}/collector`,
    key: null,
    headers: employee.write,
    payload: { user_id: employee.id },
  });
  assert.equal(denied.statusCode, 403, denied.body);
  const cleared = await h.put(`/api/credits/${a.id}/collector`, { user_id: null });
  assert.equal(json(cleared).collector_id, null);
  assert.equal(json(await h.get('/api/installments?collector=none')).total, 2);
});

test('worklist: promise=pending|broken|none, the latest promise and last note, client names, sorts', async (t) => {
  const clock = settableClock('2026-02-10');
  const h = await build(t, { clock });
  const p = await plan(h, ONE);
  const ana = await named(h, 'Ana', 'García');
  const bea = await named(h, 'Bea', 'López');
  const cam = await named(h, 'Cam', 'Álvarez');
  // due 2026-01-31 (10 days late), 2026-01-21 (20 late), 2026-02-20 (not due)
  const a = (await credit(h, ana.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-01-01' })).credit;
  const b = (await credit(h, bea.id, { credit_config_id: p.id, amount: 500, start_date: '2025-12-22' })).credit;
  const c = (await credit(h, cam.id, { credit_config_id: p.id, amount: 2000, start_date: '2026-01-21' })).credit;

  // a: a promise broken (its day 02-10 passes), then a newer pending one; b: one cancelled; c: none
  const broken = json(await h.post(`/api/credits/${a.id}/promises`, { amount: 100, promised_for: '2026-02-10' }));
  const cancelled = json(await h.post(`/api/credits/${b.id}/promises`, { amount: 100, promised_for: '2026-02-15' }));
  await h.post(`/api/credits/${b.id}/promises/${cancelled.id}/cancel`);
  await h.post(`/api/clients/${ana.id}/notes`, { channel: 'call', outcome: 'no answer' });
  const last = json(
    await h.post(`/api/clients/${ana.id}/notes`, { channel: 'visit', outcome: 'will pay', credit_id: a.id }),
  );
  clock.set('2026-02-11');
  const list = async (q: string) => {
    const res = await h.get(`/api/installments?${q}`);
    assert.equal(res.statusCode, 200, res.body);
    return json(res).items as any[];
  };
  const ofCredit = (items: any[]) => items.map((i) => i.credit_id);

  assert.deepEqual(ofCredit(await list('promise=broken')), [a.id]);
  const [item] = await list('promise=broken');
  assert.equal(item.latest_promise.id, broken.id);
  assert.equal(item.latest_promise.status, 'broken');
  assert.equal(item.last_note.id, last.id);
  assert.equal(item.last_note.outcome, 'will pay');
  assert.equal(item.client_name, 'Ana García');
  assert.deepEqual(ofCredit(await list('promise=pending')), []);
  // a cancelled promise is no promise
  assert.deepEqual(ofCredit(await list('promise=none')), [b.id, c.id]);

  const pending = json(await h.post(`/api/credits/${a.id}/promises`, { amount: 200, promised_for: '2026-02-20' }));
  assert.deepEqual(ofCredit(await list('promise=pending')), [a.id]);
  assert.deepEqual(ofCredit(await list('promise=broken')), []);
  assert.equal((await list('promise=pending'))[0].latest_promise.id, pending.id);
  assert.equal((await list(`credit_id=${b.id}`))[0].latest_promise, null);
  assert.equal((await list(`credit_id=${b.id}`))[0].last_note, null);

  // sorts (days late: b 21, a 11, c 0 (due 02-20); amounts 500, 1000, 2000)
  assert.deepEqual(ofCredit(await list('')), [b.id, a.id, c.id]); // default: due date
  assert.deepEqual(ofCredit(await list('sort=due_date')), [b.id, a.id, c.id]);
  assert.deepEqual(ofCredit(await list('sort=-due_date')), [c.id, a.id, b.id]);
  assert.deepEqual(ofCredit(await list('sort=-days_late')), [b.id, a.id, c.id]);
  assert.deepEqual(ofCredit(await list('sort=days_late')), [c.id, a.id, b.id]);
  assert.deepEqual(ofCredit(await list('sort=amount')), [b.id, a.id, c.id]);
  assert.deepEqual(ofCredit(await list('sort=-amount')), [c.id, a.id, b.id]);
  // Álvarez, García, López
  assert.deepEqual(ofCredit(await list('sort=client')), [c.id, a.id, b.id]);
  // the sort is over the whole list, not the page
  assert.deepEqual(ofCredit(await list('sort=-amount&limit=1&offset=1')), [a.id]);
  // with other filters
  assert.deepEqual(ofCredit(await list('overdue=true&sort=amount')), [b.id, a.id]);
  assert.equal((await h.get('/api/installments?sort=nope')).statusCode, 400);
  assert.equal((await h.get('/api/installments?promise=kept')).statusCode, 400);

  // a paid promise: kept is neither pending nor broken
  await pay(h, a.id, { amount: 200 });
  assert.equal((await list(`credit_id=${a.id}`))[0].latest_promise.status, 'kept');
  assert.deepEqual(ofCredit(await list('promise=pending')), []);
});
