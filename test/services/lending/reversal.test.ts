// Payment reversal (docs/domain.md "Payment reversal"): POST
// /api/credits/{id}/payments/{paymentId}/reverse {reason} cancels the payment's slices with
// entries of origin `reversal`, re-allocates every later payment in date order (origin
// `correction`), recomputes punitory, reopens a closed credit, and never edits or deletes a row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../helpers/app.ts';
import {
  P35,
  client,
  credit,
  detail,
  figures,
  ledger,
  netBy,
  pay,
  payments,
  plan,
  total,
} from '../../helpers/book-in-cents.ts';

/** Installment figures without #3's status, which the test below pins on its own. */
const noStatus3 = (f: any) => (f.number === 3 ? { ...f, status: '(pinned below)' } : f);

// One credit of the P35 plan: 1000 on 2024-01-01 → 3 × 450 due 01-31, 02-29 (2024 is a leap
// year), 03-31; read on 2024-04-15. Paid on time: A 450 on 01-31, B 450 on 02-29, C 450 on 03-31
// → closed, no punitory ever.
async function closedOnTime(h: any) {
  const p = await plan(h, P35);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' });
  assert.deepEqual(
    d.installments.map((i: any) => i.due_date),
    ['2024-01-31', '2024-02-29', '2024-03-31'],
  );
  const a = await pay(h, d.credit.id, { amount: 450, paid_on: '2024-01-31' });
  const b = await pay(h, d.credit.id, { amount: 450, paid_on: '2024-02-29' });
  const cc = await pay(h, d.credit.id, { amount: 450, paid_on: '2024-03-31' });
  assert.equal(cc.credit.status, 'closed');
  // the payment answer's slices carry the payment's id, the one the payments list shows
  const ids = [a, b, cc].map((r) => {
    const slices = r.ledgerEntries.filter((e: any) => e.origin === 'payment');
    assert.equal(slices.length, 1, JSON.stringify(r.ledgerEntries));
    return slices[0].payment_id as string;
  });
  const list = await payments(h, d.credit.id);
  assert.deepEqual(
    list
      .map((x) => [x.id, x.amount, x.paid_on, x.reversed_at, x.reversal_reason])
      .sort((x, y) => (x[2] < y[2] ? -1 : 1)),
    [
      [ids[0], 450, '2024-01-31', null, null],
      [ids[1], 450, '2024-02-29', null, null],
      [ids[2], 450, '2024-03-31', null, null],
    ],
  );
  return {
    d,
    no: new Map<string, number>(d.installments.map((i: any) => [i.id, i.number])),
    A: ids[0]!,
    B: ids[1]!,
    C: ids[2]!,
  };
}

test('reversing the first payment: slices cancelled, later payments re-allocated in date order, punitory recomputed, the closed credit reopens', async (t) => {
  const clock = settableClock('2024-04-15');
  const h = await build(t, { clock });
  const { d, no, A, B, C } = await closedOnTime(h);
  const id = d.credit.id;
  const before = await ledger(h, id);

  const res = await h.post(`/api/credits/${id}/payments/${A}/reverse`, { reason: 'bounced transfer' });
  assert.equal(res.statusCode, 200, res.body);
  const r = json(res);
  assert.equal(r.credit.status, 'active', 'a closed credit reopens');

  // As if A had never happened (0.5 %/day on the unpaid amount, counted from the day after the due
  // date; a payment lowers the base from the day after it is made):
  // - B (02-29) meets #1 late 29 days (Feb 1..29): 29 × 2.25 = 65.25 punitory, then 384.75 of the
  //   amount → #1 owes 65.25 from 03-01.
  // - C (03-31) meets #1's 31 more days (Mar 1..31) on 65.25: 31 × 0.32625 = 10.11375, cumulative
  //   65.25 + 10.11375 = 75.36375 → 75.36, so 10.11 punitory + 65.25 amount = 75.36 closes #1;
  //   #2 late 31 days (Mar 1..31): 31 × 2.25 = 69.75 punitory, then 450 − 75.36 − 69.75 = 304.89
  //   of its amount → #2 owes 145.11 from 04-01; #3 is due on 03-31 itself: not late, nothing.
  // - Today, 04-15: #2 adds 15 days (Apr 1..15) on 145.11: 15 × 0.72555 = 10.88325, cumulative
  //   69.75 + 10.88325 = 80.63325 → 80.63, outstanding 145.11 + 10.88 = 155.99; #3 late 15 days
  //   on 450: 15 × 2.25 = 33.75, outstanding 483.75.
  // Balance: 1350 + 75.36 + 80.63 + 33.75 − 900 paid = 639.74.
  const expected = [
    // #1 became paid on 03-31: 60 days after 01-31
    {
      number: 1,
      amount: 450,
      status: 'paid',
      overdue: false,
      days_late: 60,
      punitory: 75.36,
      paid: 525.36,
      outstanding: 0,
    },
    // 04-15 − 02-29 = 46 days
    {
      number: 2,
      amount: 450,
      status: 'partial',
      overdue: true,
      days_late: 46,
      punitory: 80.63,
      paid: 374.64,
      outstanding: 155.99,
    },
    {
      number: 3,
      amount: 450,
      status: 'pending',
      overdue: true,
      days_late: 15,
      punitory: 33.75,
      paid: 0,
      outstanding: 483.75,
    },
  ];
  // #3's status is pinned apart (see the test below): here the figures and #1, #2's status
  assert.deepEqual(r.installments.map(figures).map(noStatus3), expected.map(noStatus3));
  // the reversal is one of the events punitory is posted before: posted up to today, nothing accrued since
  assert.deepEqual(
    r.installments.map((i: any) => [i.punitory_posted, i.punitory_accrued]),
    [
      [75.36, 0],
      [80.63, 0],
      [33.75, 0],
    ],
  );
  assert.deepEqual(
    [r.balance.principal, r.balance.interest, r.balance.vat, r.balance.paid, r.balance.outstanding],
    [1000, 350, 0, 900, 639.74],
  );
  assert.equal(r.balance.punitory_posted + r.balance.punitory_accrued, 189.74); // 75.36 + 80.63 + 33.75

  // a read today says the same as the answer
  const now = await detail(h, id);
  assert.deepEqual(now.credit.status, 'active');
  assert.deepEqual(now.installments.map(figures).map(noStatus3), expected.map(noStatus3));
  assert.equal(now.balance.outstanding, 639.74);

  // nothing in the ledger was edited or deleted: every earlier row is still there, unchanged
  const after = await ledger(h, id);
  const byId = new Map(after.map((e) => [e.id, e]));
  for (const e of before) assert.deepEqual(byId.get(e.id), e, `entry ${e.id} changed or vanished`);
  const added = after.filter((e) => !before.some((b) => b.id === e.id));
  assert.equal(after.length, before.length + added.length);
  const logs = async (q: string) => json(await h.get(`/api/logs?table_name=ledger&action=${q}`)).total;
  assert.equal(await logs('UPDATE'), 0, 'a ledger row was updated');
  assert.equal(await logs('DELETE'), 0, 'a ledger row was deleted');

  // A's one slice (450 on #1) is cancelled by one entry of origin reversal, dated like the payment
  const reversal = added.filter((e) => e.origin === 'reversal');
  assert.deepEqual(
    reversal.map((e) => [e.type, no.get(e.installment_id), e.amount, e.payment_id, e.effective_date]),
    [['payment', 1, -450, A, '2024-01-31']],
  );
  // B and C re-allocated with new entries of origin correction (A has none)
  const corrections = added.filter((e) => e.origin === 'correction' && e.type === 'payment');
  assert.deepEqual([...new Set(corrections.map((e) => e.payment_id))].sort(), [B, C].sort());
  // what each payment now holds on each installment (its slices, reversals and corrections):
  // A nothing; B 450 on #1 (65.25 punitory + 384.75), nothing on #2; C 75.36 on #1, 374.64 on
  // #2 (69.75 + 304.89), nothing on #3
  const slices = after.filter((e) => e.type === 'payment');
  assert.deepEqual(
    netBy(slices, (e) => `${e.payment_id === A ? 'A' : e.payment_id === B ? 'B' : 'C'}#${no.get(e.installment_id)}`),
    { 'A#1': 0, 'B#1': 450, 'B#2': 0, 'C#1': 75.36, 'C#2': 374.64, 'C#3': 0 },
  );
  // the punitory entries add up to the recomputed punitory of each installment
  assert.deepEqual(
    netBy(
      after.filter((e) => e.type === 'punitory'),
      (e) => `#${no.get(e.installment_id)}`,
    ),
    { '#1': 75.36, '#2': 80.63, '#3': 33.75 },
  );
  // cash on the credit: 3 × 450 paid, 450 reversed
  assert.equal(total(slices), 900);

  // the payments list keeps A, marked reversed with its reason
  const list = await payments(h, id);
  const a = list.find((x) => x.id === A);
  assert.equal(a.reversal_reason, 'bounced transfer');
  assert.match(a.reversed_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  assert.deepEqual(
    list.filter((x) => x.id !== A).map((x) => [x.reversed_at, x.reversal_reason]),
    [
      [null, null],
      [null, null],
    ],
  );

  // the audit log holds the payment's update, from not reversed to reversed with the reason
  const audit = json(await h.get('/api/logs?table_name=payments&action=UPDATE')).items;
  assert.equal(audit.length, 1, JSON.stringify(audit));
  assert.equal(audit[0].record_id, A);
  assert.equal(audit[0].old_data.reversed_at, null);
  assert.equal(audit[0].old_data.reversal_reason, null);
  assert.notEqual(audit[0].new_data.reversed_at, null);
  assert.equal(audit[0].new_data.reversal_reason, 'bounced transfer');
  assert.equal(audit[0].new_data.amount, 450);
});

test('reversing the last payment reopens the credit and leaves the earlier ones as they were', async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-15') });
  const { d, no, A, B, C } = await closedOnTime(h);
  const id = d.credit.id;
  const res = await h.post(`/api/credits/${id}/payments/${C}/reverse`, { reason: 'paid on the wrong credit' });
  assert.equal(res.statusCode, 200, res.body);
  const r = json(res);
  assert.equal(r.credit.status, 'active');
  // #1 and #2 paid on time stay paid; #3 (due 03-31) is unpaid again and late 15 days (Apr 1..15):
  // 15 × 2.25 = 33.75 → 483.75 (#3's status: the test below)
  assert.deepEqual(
    r.installments.map(figures).map(noStatus3),
    [
      { number: 1, amount: 450, status: 'paid', overdue: false, days_late: 0, punitory: 0, paid: 450, outstanding: 0 },
      { number: 2, amount: 450, status: 'paid', overdue: false, days_late: 0, punitory: 0, paid: 450, outstanding: 0 },
      {
        number: 3,
        amount: 450,
        status: 'pending',
        overdue: true,
        days_late: 15,
        punitory: 33.75,
        paid: 0,
        outstanding: 483.75,
      },
    ].map(noStatus3),
  );
  assert.equal(r.balance.outstanding, 483.75);
  // no later payment: nothing to re-allocate, so no correction of A or B
  const after = await ledger(h, id);
  assert.deepEqual(
    after.filter((e) => e.origin === 'correction' && e.type === 'payment'),
    [],
  );
  assert.deepEqual(
    netBy(
      after.filter((e) => e.type === 'payment'),
      (e) => `${e.payment_id === A ? 'A' : e.payment_id === B ? 'B' : 'C'}#${no.get(e.installment_id)}`,
    ),
    { 'A#1': 450, 'B#2': 450, 'C#3': 0 },
  );
  // the reversed credit takes payments again: 483.75 closes it
  const closing = await pay(h, id, { amount: 483.75, paid_on: '2024-04-15' });
  assert.equal(closing.credit.status, 'closed');
});

test("reversal refusals: twice 409, without a reason 400, another credit's payment 404; nothing is written", async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-15') });
  const { d, A } = await closedOnTime(h);
  const id = d.credit.id;
  const p = await plan(h, P35);
  const c = await client(h);
  const other = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-04-01' });
  const otherPay = await pay(h, other.credit.id, { amount: 100, paid_on: '2024-04-10' });
  const otherPaymentId = otherPay.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;

  const rev = (creditId: string, paymentId: string, body: unknown, key?: string) =>
    h.post(`/api/credits/${creditId}/payments/${paymentId}/reverse`, body, key);

  // without a reason (a required field): 400 and nothing happens
  const before = await ledger(h, id);
  const noReason = await rev(id, A, {});
  assert.equal(noReason.statusCode, 400, noReason.body);
  assert.equal(json(noReason).code, 'validation_failed');
  // another credit's payment, under this credit: not found
  const wrong = await rev(id, otherPaymentId, { reason: 'x' });
  assert.equal(wrong.statusCode, 404, wrong.body);
  assert.equal(json(wrong).code, 'not_found');
  // an id that is not a uuid, and a payment that does not exist: not found
  assert.equal((await rev(id, 'nope', { reason: 'x' })).statusCode, 404);
  assert.equal((await rev(id, '00000000-0000-4000-8000-000000000000', { reason: 'x' })).statusCode, 404);
  // another business: not found; a read key: forbidden
  const stranger = await h.newTenant();
  assert.equal((await rev(id, A, { reason: 'x' }, stranger.fullKey)).statusCode, 404);
  assert.equal((await rev(id, A, { reason: 'x' }, h.tenant.readKey)).statusCode, 403);
  assert.deepEqual(await ledger(h, id), before, 'a refused reversal wrote to the ledger');
  assert.equal((await detail(h, id)).credit.status, 'closed');
  assert.equal((await detail(h, other.credit.id)).installments[0].paid, 100);

  // once is fine; twice is a conflict that writes nothing and keeps the first reason
  assert.equal((await rev(id, A, { reason: 'bounced transfer' })).statusCode, 200);
  const once = await ledger(h, id);
  const twice = await rev(id, A, { reason: 'again' });
  assert.equal(twice.statusCode, 409, twice.body);
  assert.equal(json(twice).code, 'conflict');
  assert.deepEqual(await ledger(h, id), once);
  const list = await payments(h, id);
  assert.equal(list.find((x) => x.id === A).reversal_reason, 'bounced transfer');
  assert.equal(json(await h.get('/api/logs?table_name=payments&action=UPDATE')).total, 1);
});

// docs/domain.md "Payments and allocation": an installment is `partial` when something was paid but not all, `pending`
// otherwise. After a reversal takes back everything that had been paid on it, nothing is paid on
// it: it is pending again, whether its slice was reversed (C) or moved away by a correction (B's
// and C's re-allocation after A's reversal).
test('an installment whose every payment was taken back by a reversal is pending again, not partial', {}, async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-15') });
  const first = await closedOnTime(h);
  const second = await closedOnTime(h);
  // reversing C: #3's only slice (450) cancelled → paid 0
  const last = json(
    await h.post(`/api/credits/${first.d.credit.id}/payments/${first.C}/reverse`, { reason: 'wrong credit' }),
  );
  // reversing A: C's 450 on #3 moves to #1 and #2 → #3 paid 0
  const firstRev = json(
    await h.post(`/api/credits/${second.d.credit.id}/payments/${second.A}/reverse`, { reason: 'bounced' }),
  );
  assert.deepEqual(
    [last, firstRev].map((r) => [r.installments[2].paid, r.installments[2].status]),
    [
      [0, 'pending'],
      [0, 'pending'],
    ],
  );
});
