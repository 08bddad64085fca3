// Waivers of punitory and charges (docs/domain.md, "Fees and charges"; docs/api.md, "Waivers"),
// through the API. Every figure is worked out by hand in a comment next to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../../helpers/app.ts';
import { userSession } from '../../../helpers/sessions.ts';
import { P35, client, credit, detail, ledger, pay, payoff, plan } from '../../../helpers/book-in-cents.ts';

// 1000 on 2024-01-01 at 35 % flat (P35): 450 due 01-31, 02-29, 03-31; 2.25 a day of punitory on
// an unpaid installment. On 02-10 installment 1 is 10 days late (Feb 1..10): 22.50 of punitory.
async function lateCredit(t: Parameters<typeof build>[0]) {
  const h = await build(t, { clock: settableClock('2024-02-10') });
  const p = await plan(h, P35);
  const c = await client(h);
  const cr = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' });
  return { h, id: cr.credit.id as string, first: cr.installments[0].id as string };
}

test('a punitory waiver posts punitory up to today, takes the amount off what is owed, and the next payment pays the rest first', async (t) => {
  const { h, id, first } = await lateCredit(t);
  const before = await payoff(h, id);
  const res = await h.post(`/api/credits/${id}/waivers`, {
    installment_id: first,
    kind: 'punitory',
    amount: 10,
    reason: 'hospitalised; agreed with the manager',
  });
  assert.equal(res.statusCode, 201, res.body);
  const d = json(res);
  // #1: 22.50 posted, 10 waived: 450 + 22.50 − 10 = 462.50 owed
  const i1 = d.installments[0];
  assert.deepEqual(
    [i1.punitory_posted, i1.punitory_accrued, i1.waived, i1.charges, i1.paid, i1.outstanding],
    [22.5, 0, 10, 0, 0, 462.5],
  );
  // the credit: 1,350 + 22.50 − 10 = 1,362.50
  assert.deepEqual([d.balance.waived, d.balance.outstanding], [10, 1362.5]);
  // a guarantor of the credit sees the same figure on its own client read
  const backer = await client(h);
  const added = await h.post(`/api/credits/${id}/guarantors`, { client_id: backer.id, role: 'guarantor' });
  assert.equal(added.statusCode, 201, added.body);
  const guarantees = json(await h.get(`/api/clients/${backer.id}`)).guarantees;
  assert.deepEqual(
    guarantees.map((g: { credit_id: string; outstanding: number }) => [g.credit_id, g.outstanding]),
    [[id, 1362.5]],
  );
  // the ledger: the punitory posted up to today, then the waiver (negative, no payment)
  const entries = (await ledger(h, id)).filter((e) => e.type !== 'installment');
  assert.deepEqual(
    entries.map((e) => [e.type, e.origin, e.amount, e.effective_date, e.payment_id]),
    [
      ['punitory', 'accrual', 22.5, '2024-02-10', null],
      ['waiver', 'waiver', -10, '2024-02-10', null],
    ],
  );
  // the payoff quote drops by exactly the 10 waived; its punitory is 22.50 − 10 = 12.50
  const after = await payoff(h, id);
  assert.equal(after.breakdown.punitory, 12.5);
  assert.equal(Math.round((before.amount - after.amount) * 100), 1000);
  // the event, with the reason
  const events = json(await h.get('/api/events?after=0&limit=100')).items.filter(
    (e: { type: string }) => e.type === 'waiver.created',
  );
  assert.equal(events.length, 1);
  assert.deepEqual(
    [events[0].data.object.kind, events[0].data.object.amount, events[0].data.object.reason],
    ['punitory', 10, 'hospitalised; agreed with the manager'],
  );

  // a payment of 460: #1's punitory first, 12.50 (not the 22.50 posted), then 447.50 of its amount
  const paid = await pay(h, id, { amount: 460 });
  const slice = paid.ledgerEntries.find((e: any) => e.type === 'payment');
  assert.equal(slice.amount, 460);
  const now = await detail(h, id);
  // #1: 462.50 − 460 = 2.50 still owed, all of its amount
  assert.deepEqual([now.installments[0].status, now.installments[0].outstanding], ['partial', 2.5]);
  assert.equal((await payoff(h, id)).breakdown.punitory, 0);

  // reversing the payment leaves the waiver where it was: 462.50 owed on #1 again
  const pid = paid.ledgerEntries.find((e: any) => e.type === 'payment').payment_id;
  const rev = await h.post(`/api/credits/${id}/payments/${pid}/reverse`, { reason: 'bounced' });
  assert.equal(rev.statusCode, 200, rev.body);
  const back = json(rev).installments[0];
  assert.deepEqual([back.waived, back.outstanding, back.status], [10, 462.5, 'pending']);
});

test('a waiver of more than is posted and unpaid is 422 and changes nothing; so is a charge waiver with no charge posted', async (t) => {
  const { h, id, first } = await lateCredit(t);
  assert.equal(
    (await h.post(`/api/credits/${id}/waivers`, { installment_id: first, kind: 'punitory', amount: 10, reason: 'x' }))
      .statusCode,
    201,
  );
  const ledgerBefore = await ledger(h, id);
  const detailBefore = await detail(h, id);
  // unpaid punitory on #1: 22.50 − 10 = 12.50; 12.51 is one cent too much
  const over = await h.post(`/api/credits/${id}/waivers`, {
    installment_id: first,
    kind: 'punitory',
    amount: 12.51,
    reason: 'x',
  });
  assert.equal(over.statusCode, 422, over.body);
  assert.equal(json(over).code, 'unprocessable');
  assert.match(json(over).error, /12\.50/);
  // no charge is posted on #1: any charge waiver is too much
  const charge = await h.post(`/api/credits/${id}/waivers`, {
    installment_id: first,
    kind: 'charge',
    amount: 1,
    reason: 'x',
  });
  assert.equal(charge.statusCode, 422, charge.body);
  // installment 2 is not due: nothing posted on it
  const notDue = await h.post(`/api/credits/${id}/waivers`, {
    installment_id: detailBefore.installments[1].id,
    kind: 'punitory',
    amount: 0.01,
    reason: 'x',
  });
  assert.equal(notDue.statusCode, 422, notDue.body);
  assert.deepEqual(await ledger(h, id), ledgerBefore);
  assert.deepEqual(await detail(h, id), detailBefore);

  // the 12.50 left is waived in full: #1 owes its amount only
  const all = await h.post(`/api/credits/${id}/waivers`, {
    installment_id: first,
    kind: 'punitory',
    amount: 12.5,
    reason: 'x',
  });
  assert.equal(all.statusCode, 201, all.body);
  assert.deepEqual([json(all).installments[0].waived, json(all).installments[0].outstanding], [22.5, 450]);
});

test('only admins and full keys waive: an employee or a read key is 403 and nothing changes', async (t) => {
  const { h, id, first } = await lateCredit(t);
  const body = { installment_id: first, kind: 'punitory', amount: 1, reason: 'x' };
  const ledgerBefore = await ledger(h, id);
  const employee = await userSession(h, h.tenant.businessId, 'employee');
  const byEmployee = await h.req({
    method: 'POST',
    url: `/api/credits/${id}/waivers`,
    key: null,
    headers: employee.write,
    payload: body,
  });
  assert.equal(byEmployee.statusCode, 403, byEmployee.body);
  assert.equal((await h.post(`/api/credits/${id}/waivers`, body, h.tenant.readKey)).statusCode, 403);
  assert.deepEqual(await ledger(h, id), ledgerBefore);
  const admin = await userSession(h, h.tenant.businessId, 'admin');
  const byAdmin = await h.req({
    method: 'POST',
    url: `/api/credits/${id}/waivers`,
    key: null,
    headers: admin.write,
    payload: body,
  });
  assert.equal(byAdmin.statusCode, 201, byAdmin.body);
  // created_by: who waived
  const w = (await ledger(h, id)).find((e) => e.type === 'waiver');
  assert.equal(w.created_by, `user:${admin.id}`);
});

test('a waiver reaches only a waivable installment of a credit of the caller: 404 across businesses, 422 for another credit, 409 once refinanced or cancelled', async (t) => {
  const { h, id, first } = await lateCredit(t);
  const body = (installment_id: string) => ({ installment_id, kind: 'punitory', amount: 1, reason: 'x' });
  // another business's full key does not see the credit
  const other = await h.newTenant();
  const across = await h.post(`/api/credits/${id}/waivers`, body(first), other.fullKey);
  assert.equal(across.statusCode, 404, across.body);
  // an installment of another credit of the same business
  const p = await plan(h, P35);
  const c = await client(h);
  const second = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' });
  const foreign = await h.post(`/api/credits/${id}/waivers`, body(second.installments[0].id));
  assert.equal(foreign.statusCode, 422, foreign.body);
  assert.equal(json(foreign).details[0].path, '/installment_id');
  // a refinanced credit: its balance moved to the new credit
  const refi = await h.post(`/api/credits/${second.credit.id}/refinance`, { credit_config_id: p.id });
  assert.equal(refi.statusCode, 201, refi.body);
  const refinanced = await h.post(`/api/credits/${second.credit.id}/waivers`, body(second.installments[0].id));
  assert.equal(refinanced.statusCode, 409, refinanced.body);
  // a cancelled credit (granted today, nothing paid nor due)
  const fresh = await credit(h, c.id, { credit_config_id: p.id, amount: 1000 });
  const cancel = await h.post(`/api/credits/${fresh.credit.id}/cancel`, {});
  assert.equal(cancel.statusCode, 200, cancel.body);
  const cancelled = await h.post(`/api/credits/${fresh.credit.id}/waivers`, body(fresh.installments[0].id));
  assert.equal(cancelled.statusCode, 409, cancelled.body);
  assert.equal(json(cancelled).code, 'conflict');
});

test('the waivers list: newest first with installment, kind, amount, reason and who wrote it; readers of the credit only', async (t) => {
  const { h, id, first } = await lateCredit(t);
  const none = await h.get(`/api/credits/${id}/waivers`);
  assert.equal(none.statusCode, 200, none.body);
  assert.deepEqual(json(none), []);
  // #1 holds 22.50 of punitory posted on 02-10: 10 waived first, then 2.50 more
  const one = await h.post(`/api/credits/${id}/waivers`, {
    installment_id: first,
    kind: 'punitory',
    amount: 10,
    reason: 'hospitalised; agreed with the manager',
  });
  assert.equal(one.statusCode, 201, one.body);
  const two = await h.post(`/api/credits/${id}/waivers`, {
    installment_id: first,
    kind: 'punitory',
    amount: 2.5,
    reason: 'rounding agreed by phone',
  });
  assert.equal(two.statusCode, 201, two.body);
  const res = await h.get(`/api/credits/${id}/waivers`);
  assert.equal(res.statusCode, 200, res.body);
  const list = json(res);
  assert.deepEqual(
    list.map((w: any) => [w.installment_id, w.installment_number, w.kind, w.amount, w.reason, w.credit_id]),
    [
      [first, 1, 'punitory', 2.5, 'rounding agreed by phone', id],
      [first, 1, 'punitory', 10, 'hospitalised; agreed with the manager', id],
    ],
  );
  // each id is its ledger entry's; who wrote it: the tenant's full key
  const entries = (await ledger(h, id)).filter((e) => e.type === 'waiver');
  assert.deepEqual(list.map((w: any) => w.id).sort(), entries.map((e) => e.id).sort());
  assert.ok(
    list.every((w: any) => w.created_by.startsWith('api_key:') && typeof w.created_at === 'string'),
    'every waiver names the key that wrote it and when',
  );
  // the event carries the same record as the list
  const events = json(await h.get('/api/events?after=0&limit=100')).items.filter(
    (e: { type: string }) => e.type === 'waiver.created',
  );
  assert.deepEqual(events.map((e: any) => e.data.object).reverse(), list);
  // a viewer of the business reads it too, and a read key
  const viewer = await userSession(h, h.tenant.businessId, 'viewer');
  const byViewer = await h.req({ method: 'GET', url: `/api/credits/${id}/waivers`, key: null, headers: viewer.read });
  assert.equal(byViewer.statusCode, 200, byViewer.body);
  assert.deepEqual(json(byViewer), list);
  assert.deepEqual(json(await h.get(`/api/credits/${id}/waivers`, h.tenant.readKey)), list);
  // another business's credit and an unknown one are 404
  const other = await h.newTenant();
  const across = await h.get(`/api/credits/${id}/waivers`, other.fullKey);
  assert.equal(across.statusCode, 404, across.body);
  assert.equal(json(across).code, 'not_found');
  const unknown = await h.get(`/api/credits/${crypto.randomUUID()}/waivers`);
  assert.equal(unknown.statusCode, 404, unknown.body);
  assert.equal((await h.get('/api/credits/not-a-uuid/waivers')).statusCode, 404);
  // without a key: 401
  assert.equal((await h.get(`/api/credits/${id}/waivers`, null)).statusCode, 401);
});
