// Promises to pay through HTTP (docs/collections.md): kept by the payments registered since the
// promise and dated up to its day, broken once the day has passed without them (decided on read,
// and for good by the daily run, which announces promise.broken once), cancelled while pending.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../../helpers/app.ts';
import { accrue, client, credit, pay, plan } from '../../../helpers/book-in-cents.ts';

// One installment of 1000 (no interest, no punitory), due 30 days after the start.
const ONE = { installments_count: 1, days_until_first_payment: 30 };

async function setup(t: any, today: string) {
  const clock = settableClock(today);
  const h = await build(t, { clock });
  const p = await plan(h, ONE);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-01-01' }); // due 2026-01-31
  return { h, clock, creditId: d.credit.id as string, clientId: c.id as string };
}

const events = async (h: any, type: string) => json(await h.get(`/api/events?types=${type}&limit=100`)).items as any[];

test('a promise is kept when the payments since it reach its amount by its day, before the day passes', async (t) => {
  const { h, clock, creditId } = await setup(t, '2026-02-10');
  const res = await h.post(`/api/credits/${creditId}/promises`, {
    amount: 300,
    promised_for: '2026-02-20',
    note: ' call back ',
  });
  assert.equal(res.statusCode, 201, res.body);
  const p = json(res);
  assert.equal(p.status, 'pending');
  assert.equal(p.amount, 300);
  assert.equal(p.note, 'call back');
  assert.equal(p.credit_id, creditId);
  assert.match(p.created_by, /^api_key:/);
  const created = await events(h, 'promise.created');
  assert.equal(created.length, 1);
  assert.equal(created[0].data.object.id, p.id);

  // 100 + 200.00 = 300: kept the moment the second payment is in, with its day still ahead
  await pay(h, creditId, { amount: 100 });
  assert.equal(json(await h.get(`/api/credits/${creditId}/promises`))[0].status, 'pending');
  clock.set('2026-02-15');
  await pay(h, creditId, { amount: 200 });
  assert.equal(json(await h.get(`/api/credits/${creditId}/promises`))[0].status, 'kept');

  // after its day the daily run settles it kept: no promise.broken
  clock.set('2026-02-25');
  const run = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(run.code, 0, run.err);
  assert.equal(run.out.businesses[0].promises_broken, 0);
  assert.equal(json(await h.get(`/api/credits/${creditId}/promises`))[0].status, 'kept');
  assert.equal((await events(h, 'promise.broken')).length, 0);
  // a kept promise cannot be cancelled
  const cancel = await h.post(`/api/credits/${creditId}/promises/${p.id}/cancel`);
  assert.equal(cancel.statusCode, 409, cancel.body);
});

test('a promise not met by its day is broken on read the day after, and the daily run announces it once', async (t) => {
  const { h, clock, creditId } = await setup(t, '2026-02-10');
  const p = json(await h.post(`/api/credits/${creditId}/promises`, { amount: 500, promised_for: '2026-02-12' }));
  // a payment registered before the promise does not count; 499.99 registered since is short by a cent
  await pay(h, creditId, { amount: 499.99 });
  clock.set('2026-02-12');
  assert.equal(json(await h.get(`/api/credits/${creditId}/promises`))[0].status, 'pending'); // its day: still pending
  clock.set('2026-02-13');
  assert.equal(json(await h.get(`/api/credits/${creditId}/promises`))[0].status, 'broken'); // decided on read
  assert.equal((await events(h, 'promise.broken')).length, 0); // the read announces nothing

  const first = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(first.code, 0, first.err);
  assert.equal(first.out.businesses[0].promises_broken, 1);
  clock.set('2026-02-14');
  const second = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(second.out.businesses[0].promises_broken, 0);
  const broken = await events(h, 'promise.broken');
  assert.equal(broken.length, 1);
  assert.equal(broken[0].data.object.id, p.id);
  assert.equal(broken[0].data.object.status, 'broken');
  // broken for good: a payment now (even a cent that would have made it) changes nothing
  await pay(h, creditId, { amount: 0.01, paid_on: '2026-02-12' });
  assert.equal(json(await h.get(`/api/credits/${creditId}/promises`))[0].status, 'broken');
  assert.equal((await h.post(`/api/credits/${creditId}/promises/${p.id}/cancel`)).statusCode, 409);
});

test('a pending promise can be cancelled once; a cancelled one is never broken', async (t) => {
  const { h, clock, creditId } = await setup(t, '2026-02-10');
  const p = json(await h.post(`/api/credits/${creditId}/promises`, { amount: 100, promised_for: '2026-02-11' }));
  const res = await h.post(`/api/credits/${creditId}/promises/${p.id}/cancel`);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).status, 'cancelled');
  assert.equal((await h.post(`/api/credits/${creditId}/promises/${p.id}/cancel`)).statusCode, 409);
  clock.set('2026-02-20');
  const run = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(run.out.businesses[0].promises_broken, 0);
  assert.equal(json(await h.get(`/api/credits/${creditId}/promises`))[0].status, 'cancelled');
  // another credit's id, or no such promise: 404
  assert.equal((await h.post(`/api/credits/${creditId}/promises/${creditId}/cancel`)).statusCode, 404);
});

test('promise input: the day is from today to today + 60 days, the amount > 0; unknown credit 404; closed credit 409', async (t) => {
  const { h, creditId } = await setup(t, '2026-02-10');
  const post = (body: unknown) => h.post(`/api/credits/${creditId}/promises`, body);
  for (const [body, status, path] of [
    [{ amount: 100, promised_for: '2026-02-09' }, 422, '/promised_for'],
    [{ amount: 100, promised_for: '2026-04-12' }, 422, '/promised_for'], // 02-10 + 60 days = 04-11
    [{ amount: 0, promised_for: '2026-02-11' }, 422, '/amount'],
    [{ amount: 1.001, promised_for: '2026-02-11' }, 400, null],
    [{ amount: '100', promised_for: '2026-02-11' }, 400, null],
    [{ amount: 100, promised_for: '2026-02-30' }, 400, null],
    [{ amount: 100, promised_for: '2026-02-11', extra: 1 }, 400, null],
  ] as const) {
    const res = await post(body);
    assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
    if (path) assert.equal(json(res).details[0].path, path);
  }
  assert.equal((await post({ amount: 100, promised_for: '2026-04-11' })).statusCode, 201);
  assert.equal((await post({ amount: 100, promised_for: '2026-02-10' })).statusCode, 201);
  const other = await h.post(`/api/credits/00000000-0000-4000-8000-000000000000/promises`, {
    amount: 1,
    promised_for: '2026-02-11',
  });
  assert.equal(other.statusCode, 404);
  // paid in full: closed, no promise
  await pay(h, creditId, { amount: 1000 });
  assert.equal((await post({ amount: 1, promised_for: '2026-02-11' })).statusCode, 409);
  // another business sees nothing
  const t2 = await h.newTenant();
  assert.equal((await h.get(`/api/credits/${creditId}/promises`, t2.fullKey)).statusCode, 404);
  assert.equal(json(await h.get(`/api/credits/${creditId}/promises`)).length, 2);
});
