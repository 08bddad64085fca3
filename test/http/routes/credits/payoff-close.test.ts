// Closing a credit whose payoff is 0 (docs/domain.md "Early payoff"; docs/api.md "Close a credit
// whose payoff is 0"): POST /api/credits/{id}/payoff writes the rebate, takes the refund back off
// the installments, closes the credit and answers the refund. Figures by hand next to each check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../../helpers/app.ts';
import { userSession } from '../../../helpers/sessions.ts';
import {
  client,
  credit,
  detail,
  ledger,
  netBy,
  pay,
  payments,
  payoff,
  plan,
  total,
} from '../../../helpers/book-in-cents.ts';

const P30 = { installments_count: 3, interest_rate: 0.3, days_until_first_payment: 30, cut_type: 'fixed' };

// 3,000 at a flat 30 % in 3 installments from 2026-11-16: 1,300 each (1,000 principal, 300
// interest) due 12-16, 2027-01-16, 02-16. 3,800 paid on 11-17: #1 and #2 in full, 1,200 of #3
// (its 300 of interest, 900 of principal). On 11-26 what settles it is the 3,000 of principal and
// 100 of interest (10 of #1's 30 days): 3,100, so 700 was paid beyond it.
async function prepaid(t: Parameters<typeof build>[0]) {
  const h = await build(t, { clock: settableClock('2026-11-26') });
  const p = await plan(h, P30);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 3000, start_date: '2026-11-16' });
  const id = d.credit.id as string;
  const paid = await pay(h, id, { amount: 3800, paid_on: '2026-11-17' });
  const prepaymentId = paid.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id as string;
  const no = new Map<string, number>(d.installments.map((i: any) => [i.id, i.number]));
  return { h, id, prepaymentId, no };
}

test('a credit paid beyond its payoff closes with the rebate and reports the refund; reversing the close reopens it', async (t) => {
  const { h, id, prepaymentId, no } = await prepaid(t);
  const q = await payoff(h, id);
  assert.deepEqual([q.amount, q.refundable, q.breakdown.rebate], [0, 700, 800]);

  const res = await h.req({
    method: 'POST',
    url: `/api/credits/${id}/payoff`,
    headers: { 'idempotency-key': 'close-1' },
    payload: {},
  });
  assert.equal(res.statusCode, 201, res.body);
  const r = json(res);
  assert.equal(r.refund, 700);
  assert.equal(r.credit.status, 'closed');
  assert.deepEqual(
    r.installments.map((i: any) => [i.number, i.status, i.paid, i.outstanding]),
    [
      [1, 'paid', 1300, 0],
      [2, 'paid', 1300, 0],
      [3, 'paid', 1300, 0],
    ],
  );
  assert.equal(r.balance.outstanding, 0);
  // the entries of the close, all dated 11-26 and naming it: the rebate of the interest not owed
  // (#1: 300 − 100 accrued = 200; #2 and #3: 300 each), then what that leaves paid beyond each
  // installment taken back (#1 1,300 + 200 − 1,300; #2 likewise 300; #3 1,200 + 300 − 1,300 = 200)
  const closeId = r.payment_id;
  assert.ok(
    r.ledgerEntries.every((e: any) => e.payment_id === closeId && e.effective_date === '2026-11-26'),
    `every entry of the answer is the close's, dated 11-26: ${JSON.stringify(r.ledgerEntries)}`,
  );
  const rebates = r.ledgerEntries.filter((e: any) => e.origin === 'rebate');
  assert.deepEqual(
    netBy(rebates, (e) => `#${no.get(e.installment_id)}`),
    { '#1': 200, '#2': 300, '#3': 300 },
  );
  const refund = r.ledgerEntries.filter((e: any) => e.origin === 'correction');
  assert.deepEqual(
    netBy(refund, (e) => `#${no.get(e.installment_id)}`),
    { '#1': -200, '#2': -300, '#3': -200 },
  );
  assert.equal(total(refund), -700);
  // no cash came in: the close is listed among the payments, of kind payoff_close, minus the refund
  const list = await payments(h, id);
  assert.deepEqual(
    list.map((p: any) => [p.kind, p.amount, p.paid_on, p.reversed_at]),
    [
      ['payment', 3800, '2026-11-17', null],
      ['payoff_close', -700, '2026-11-26', null],
    ],
  );
  assert.equal(list[1].id, closeId);
  // and so in the payments export, its kind a column like the API's
  const csv = await h.get('/api/reports/exports/payments.csv');
  assert.equal(csv.statusCode, 200, csv.body);
  const [header, ...rows] = csv.body.trim().split('\r\n');
  const kindAt = header!.split(',').indexOf('kind');
  assert.ok(kindAt >= 0, header);
  const closeRow = rows.find((r) => r.startsWith(closeId));
  assert.ok(closeRow, `the close ${closeId} is a row of the export`);
  assert.equal(closeRow.split(',')[kindAt], 'payoff_close');
  // its receipt says the refund (JSON; the PDF is drawn from the same figures)
  const receipt = await h.get(`/api/credits/${id}/payments/${closeId}/receipt`);
  assert.equal(receipt.statusCode, 200, receipt.body);
  assert.equal(json(receipt).payment.amount, -700);
  for (const url of [`/api/credits/${id}/payments/${closeId}/receipt`, `/api/credits/${id}/statement`]) {
    const pdf = await h.req({ method: 'GET', url, headers: { accept: 'application/pdf' } });
    assert.equal(pdf.statusCode, 200, `${url}: ${pdf.body.slice(0, 200)}`);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
  }
  // the events a payoff emits: the payment recorded and the credit closed
  const events = json(await h.get('/api/events?after=0&limit=100')).items;
  const created = events.filter((e: any) => e.type === 'payment.created').map((e: any) => e.data.object);
  assert.deepEqual(
    created.map((p: any) => [p.kind, p.amount]),
    [
      ['payment', 3800],
      ['payoff_close', -700],
    ],
  );
  const closed = events.filter((e: any) => e.type === 'credit.status_changed');
  assert.deepEqual(
    closed.map((e: any) => [e.data.previous_status, e.data.object.status]),
    [['active', 'closed']],
  );
  // the same key again: the stored answer, nothing written twice
  const again = await h.req({
    method: 'POST',
    url: `/api/credits/${id}/payoff`,
    headers: { 'idempotency-key': 'close-1' },
    payload: {},
  });
  assert.equal(again.statusCode, 201, again.body);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(json(again).payment_id, closeId);
  assert.equal((await payments(h, id)).length, 2);
  // closed: quoted 0 with nothing refundable, a second close is 409, a payment too
  const after = await payoff(h, id);
  assert.deepEqual([after.amount, after.refundable], [0, 0]);
  const twice = await h.post(`/api/credits/${id}/payoff`, {});
  assert.equal(twice.statusCode, 409, twice.body);

  // the refund was handed back on the prepayment: it cannot be reversed while the close stands
  const ledgerClosed = await ledger(h, id);
  const early = await h.post(`/api/credits/${id}/payments/${prepaymentId}/reverse`, { reason: 'bounced' });
  assert.equal(early.statusCode, 409, early.body);
  assert.match(json(early).error, /closed on 2026-11-26 with a refund of 700\.00.*reverse that close first/);
  assert.deepEqual(await ledger(h, id), ledgerClosed);

  // reversing the close (the client never took the refund) reopens the credit as the prepayment left it
  const undo = await h.post(`/api/credits/${id}/payments/${closeId}/reverse`, { reason: 'refund not collected' });
  assert.equal(undo.statusCode, 200, undo.body);
  const reopened = json(undo);
  assert.equal(reopened.credit.status, 'active');
  assert.deepEqual(
    reopened.installments.map((i: any) => [i.number, i.status, i.outstanding]),
    [
      [1, 'paid', 0],
      [2, 'paid', 0],
      [3, 'partial', 100],
    ],
  );
  // the close's entries net to nothing; the quote is again 0 with 700 to refund
  const closeEntries = reopened.ledgerEntries.filter((e: any) => e.payment_id === closeId);
  assert.equal(total(closeEntries), 0);
  const requote = await payoff(h, id);
  assert.deepEqual([requote.amount, requote.refundable], [0, 700]);
  // then the prepayment may be reversed: everything is owed again
  const bounced = await h.post(`/api/credits/${id}/payments/${prepaymentId}/reverse`, { reason: 'bounced' });
  assert.equal(bounced.statusCode, 200, bounced.body);
  assert.deepEqual(
    json(bounced).installments.map((i: any) => i.outstanding),
    [1300, 1300, 1300],
  );
  assert.deepEqual([(await payoff(h, id)).amount, (await payoff(h, id)).refundable], [3100, 0]);
});

test('a close on an earlier day refunds what was paid beyond that day’s payoff', async (t) => {
  const { h, id } = await prepaid(t);
  // on 11-17: 1 of #1's 30 days, 10 of interest: 3,010 settles it, 790 handed back
  const r = await h.post(`/api/credits/${id}/payoff`, { as_of: '2026-11-17', method: 'transfer' });
  assert.equal(r.statusCode, 201, r.body);
  assert.deepEqual([json(r).refund, json(r).credit.status], [790, 'closed']);
  const close = (await payments(h, id)).find((p: any) => p.kind === 'payoff_close');
  assert.deepEqual([close.amount, close.paid_on, close.method], [-790, '2026-11-17', 'transfer']);
});

test('a close is refused while the credit owes (pay the quote), before the latest payment, in the future, and to readers', async (t) => {
  const { h, id } = await prepaid(t);
  const before = await ledger(h, id);
  // before the prepayment's date, in the future, before the start
  for (const as_of of ['2026-11-16', '2026-11-27', '2026-11-01']) {
    const r = await h.post(`/api/credits/${id}/payoff`, { as_of });
    assert.equal(r.statusCode, 422, `${as_of}: ${r.body}`);
    assert.equal(json(r).details[0].path, '/as_of');
  }
  // a read key and a viewer may not; an employee may
  assert.equal((await h.post(`/api/credits/${id}/payoff`, {}, h.tenant.readKey)).statusCode, 403);
  const viewer = await userSession(h, h.tenant.businessId, 'viewer');
  const byViewer = await h.req({
    method: 'POST',
    url: `/api/credits/${id}/payoff`,
    key: null,
    headers: viewer.write,
    payload: {},
  });
  assert.equal(byViewer.statusCode, 403, byViewer.body);
  // another business's key: 404
  const other = await h.newTenant();
  assert.equal((await h.post(`/api/credits/${id}/payoff`, {}, other.fullKey)).statusCode, 404);
  assert.deepEqual(await ledger(h, id), before);

  // a credit that still owes: 409, saying what to pay, and nothing written
  const p = await plan(h, P30);
  const c = await client(h);
  const owing = await credit(h, c.id, { credit_config_id: p.id, amount: 3000, start_date: '2026-11-16' });
  await pay(h, owing.credit.id, { amount: 2600, paid_on: '2026-11-17' });
  const owingBefore = await ledger(h, owing.credit.id);
  const refused = await h.post(`/api/credits/${owing.credit.id}/payoff`, {});
  assert.equal(refused.statusCode, 409, refused.body);
  // 3,000 + 100 − 2,600 = 500 (docs/domain.md's example)
  assert.match(json(refused).error, /the payoff on 2026-11-26 is 500\.00: .*POST \/api\/credits\/\{id\}\/payments/);
  assert.deepEqual(await ledger(h, owing.credit.id), owingBefore);
  assert.equal((await detail(h, owing.credit.id)).credit.status, 'active');

  // an employee closes the first one
  const employee = await userSession(h, h.tenant.businessId, 'employee');
  const byEmployee = await h.req({
    method: 'POST',
    url: `/api/credits/${id}/payoff`,
    key: null,
    headers: employee.write,
    payload: {},
  });
  assert.equal(byEmployee.statusCode, 201, byEmployee.body);
  assert.equal(json(byEmployee).refund, 700);
});
