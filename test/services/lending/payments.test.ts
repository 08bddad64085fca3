import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../helpers/app.ts';
import { addDays, lastMonthEnd } from '../../../src/domain/index.ts';
import { accrue, assertLedgerInvariant, client, credit, day, pay, plan } from '../../helpers/book.ts';

// The plan of the worked examples: 1000 at 35 % flat in 3 installments of 450, fixed 30 days,
// 0.5 % a day simple punitory → 2.25 a day on an unpaid installment.
const P35 = {
  installments_count: 3,
  interest_rate: 0.35,
  days_until_first_payment: 30,
  cut_type: 'fixed',
  daily_punitory_rate: 0.005,
};
const shape = (e: any) => [e.type, e.amount, e.effective_date];

test('a payment on due + 10: 10 days × 2.25 = 22.50 punitory posted first, then allocated punitory before amount', async (t) => {
  const h = await build(t);
  const p = await plan(h, P35);
  const c = await client(h);
  // start 40 days ago → installment 1 due 10 days ago
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-40) });
  assert.equal(d.installments[0].due_date, day(-10));
  assert.deepEqual([d.installments[0].overdue, d.installments[0].days_late], [true, 10]);

  const r = await pay(h, d.credit.id, { amount: 472.5 });
  const [i1, i2, i3] = d.installments.map((i: any) => i.id);
  // only the entries this payment created: the punitory up to today, then one slice
  assert.deepEqual(r.ledgerEntries.map(shape), [
    ['punitory', 22.5, day(0)],
    ['payment', 472.5, day(0)],
  ]);
  assert.deepEqual(
    r.ledgerEntries.map((e: any) => e.installment_id),
    [i1, i1],
  );
  assert.deepEqual(
    r.installments.map((i: any) => [i.status, i.overdue, i.days_late]),
    [
      ['paid', false, 10],
      ['pending', false, 0],
      ['pending', false, 0],
    ],
  );
  assert.equal(r.credit.status, 'active');

  // more than owed (900) is refused and changes nothing
  const over = await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 900.01 });
  assert.equal(over.statusCode, 422, over.body);
  assert.match(json(over).error, /900\.00/);

  // 500 → #2 fully (450), #3 partly (50)
  const r2 = await pay(h, d.credit.id, { amount: 500 });
  assert.deepEqual(
    r2.ledgerEntries.map((e: any) => [e.installment_id, e.amount]),
    [
      [i2, 450],
      [i3, 50],
    ],
  );
  assert.deepEqual(
    r2.installments.map((i: any) => i.status),
    ['paid', 'paid', 'partial'],
  );
  const r3 = await pay(h, d.credit.id, { amount: 400 });
  assert.equal(r3.credit.status, 'closed');
  assert.deepEqual(
    r3.installments.map((i: any) => i.status),
    ['paid', 'paid', 'paid'],
  );
  // a closed credit takes no payment
  const closed = await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 1 });
  assert.equal(closed.statusCode, 409);

  // the contract ledger holds all of it, in order
  const ledger = json(await h.get(`/api/credits/${d.credit.id}/ledger`));
  assert.deepEqual(
    ledger.map((e: any) => [e.type, e.amount]),
    [
      ['installment', 450],
      ['installment', 450],
      ['installment', 450],
      ['punitory', 22.5],
      ['payment', 472.5],
      ['payment', 450],
      ['payment', 50],
      ['payment', 400],
    ],
  );
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('a small payment pays punitory first and leaves the installment partial', async (t) => {
  const h = await build(t);
  const p = await plan(h, P35);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-40) });
  const r = await pay(h, d.credit.id, { amount: 20, paid_on: day(-2) });
  // 8 days × 2.25 = 18.00 punitory as of due + 8; 20 → 18 punitory + 2 amount
  assert.deepEqual(r.ledgerEntries.map(shape), [
    ['punitory', 18, day(-2)],
    ['payment', 20, day(-2)],
  ]);
  assert.equal(r.installments[0].status, 'partial');
  // the next payment today: days 9 and 10 on 448 unpaid → 2 × 2.24 = 4.48
  const r2 = await pay(h, d.credit.id, { amount: 4.48 });
  assert.deepEqual(r2.ledgerEntries.map(shape), [
    ['punitory', 4.48, day(0)],
    ['payment', 4.48, day(0)],
  ]);
  const row = await h.db.kysely
    .selectFrom('ledger')
    .select(['punitory_part'])
    .where('id', '=', r2.ledgerEntries[1].id)
    .executeTakeFirstOrThrow();
  assert.equal(row.punitory_part, '4.48');
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('grace is a tolerance: paid on due + 5 with grace 5 owes nothing; on due + 6 owes all 6 days', async (t) => {
  const h = await build(t);
  const p = await plan(h, { ...P35, grace_days: 5 });
  const c = await client(h);
  const onTime = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-35) });
  const r = await pay(h, onTime.credit.id, { amount: 450 });
  assert.deepEqual(r.ledgerEntries.map(shape), [['payment', 450, day(0)]]);
  assert.deepEqual([r.installments[0].status, r.installments[0].days_late], ['paid', 5]);

  const late = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-36) });
  // within grace it owes only the amount: paying 450 leaves 13.50 punitory unpaid
  const r2 = await pay(h, late.credit.id, { amount: 463.5 });
  assert.deepEqual(r2.ledgerEntries.map(shape), [
    ['punitory', 13.5, day(0)],
    ['payment', 463.5, day(0)],
  ]);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('a payment dated before punitory already posted: allocated as of its date, the excess punitory reversed', async (t) => {
  const clock = settableClock('2024-04-01');
  const h = await build(t, { clock });
  const p = await plan(h, P35);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-02-01' }); // #1 due 03-02
  // the month close posts March 3..31: 29 days × 2.25 = 65.25
  const run = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(run.code, 0, run.err);
  assert.deepEqual(run.out.businesses[0], {
    business_id: h.tenant.businessId,
    as_of: '2024-04-01',
    closed_through: '2024-03-31',
    credits_accrued: 1,
    punitory_entries: 1,
    punitory_total: 65.25,
    charge_entries: 0,
    written_off: 0,
    overdue_announced: 1, // #1, late since 03-03: the business's first run
    promises_broken: 0,
    clamped: 0,
    skipped: 0,
  });
  // as of its date (due + 5) the credit owed 5 × 2.25 = 11.25 + 1350: a cent more is too much
  const tooMuch = await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 1361.26, paid_on: '2024-03-07' });
  assert.equal(tooMuch.statusCode, 422, tooMuch.body);
  // a transfer made on due + 5, recorded on April 1st: 11.25 punitory + 450
  const r = await pay(h, d.credit.id, { amount: 461.25, paid_on: '2024-03-07' });
  assert.deepEqual(r.ledgerEntries.map(shape), [
    ['payment', 461.25, '2024-03-07'],
    ['punitory', -54, '2024-03-31'], // charged 65.25 through the close, owed 11.25: the difference goes back
  ]);
  assert.deepEqual([r.installments[0].status, r.installments[0].days_late], ['paid', 5]);
  // nothing posted was edited: the 65.25 is still there
  const ledger = json(await h.get(`/api/credits/${d.credit.id}/ledger`));
  assert.deepEqual(
    ledger.filter((e: any) => e.type === 'punitory').map((e: any) => e.amount),
    [65.25, -54],
  );
  // running the day again changes nothing
  const again = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(again.out.businesses[0].punitory_entries, 0);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('payment refusals: 400 for shape, 422 for rules, 409 for states, 404 for strangers; nothing changes', async (t) => {
  const h = await build(t);
  const p = await plan(h, P35);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-40) });
  const id = d.credit.id;
  const deleted = json(await h.post('/api/branches', { name: 'Cerrada' }));
  await h.del(`/api/branches/${deleted.id}`);
  const stranger = await h.newTenant();
  const strangerBranch = json(await h.post('/api/branches', { name: 'theirs' }, stranger.fullKey));

  await pay(h, id, { amount: 10, paid_on: day(-3) });
  const before = json(await h.get(`/api/credits/${id}`));
  const cases: [Record<string, unknown>, number][] = [
    [{ amount: 0 }, 422],
    [{ amount: -10 }, 422],
    [{ amount: 10.001 }, 400],
    [{ amount: '10' }, 400],
    [{}, 400],
    [{ amount: 10, paid_on: day(1) }, 422], // the future
    [{ amount: 10, paid_on: day(-41) }, 422], // before the start date
    [{ amount: 100000, paid_on: day(-4) }, 422], // more than owed on that date (before the last payment is fine)
    [{ amount: 10, paid_on: '2024-13-01' }, 400],
    [{ amount: 10, branch_id: deleted.id }, 422],
    [{ amount: 10, branch_id: strangerBranch.id }, 422],
    [{ amount: 10, extra: true }, 400],
    [{ amount: 100000 }, 422],
  ];
  for (const [body, status] of cases) {
    const res = await h.post(`/api/credits/${id}/payments`, body);
    assert.equal(res.statusCode, status, `${JSON.stringify(body)} → ${res.body}`);
  }
  assert.equal((await h.post(`/api/credits/${id}/payments`, { amount: 10 }, stranger.fullKey)).statusCode, 404);
  assert.equal((await h.post(`/api/credits/${id}/payments`, { amount: 10 }, h.tenant.readKey)).statusCode, 403);
  assert.deepEqual(json(await h.get(`/api/credits/${id}`)), before);

  // same day as the last payment is fine
  await pay(h, id, { amount: 5, paid_on: day(-3) });
  // a cancelled credit (no payment) answers 409
  const other = await credit(h, c.id, { credit_config_id: p.id, amount: 100 });
  assert.equal((await h.post(`/api/credits/${other.credit.id}/cancel`)).statusCode, 200);
  assert.equal((await h.post(`/api/credits/${other.credit.id}/payments`, { amount: 1 })).statusCode, 409);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('punitory modes on 1000 due 10 days before the month close, 0.5 %/day, 500 paid on due + 4', async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-01') });
  const c = await client(h);
  const one = { installments_count: 1, days_until_first_payment: 30, daily_punitory_rate: 0.005 };
  const results: Record<string, unknown> = {};
  for (const mode of ['simple_outstanding', 'full_amount', 'compound']) {
    const p = await plan(h, { ...one, punitory_mode: mode });
    const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-02-20' }); // due 03-21
    const r = await pay(h, d.credit.id, { amount: 500, paid_on: '2024-03-25' });
    await accrue(h, '--business', h.tenant.businessId);
    const ledger = json(await h.get(`/api/credits/${d.credit.id}/ledger`));
    results[mode] = {
      first: r.ledgerEntries.map((e: any) => e.amount),
      punitory: ledger.filter((e: any) => e.type === 'punitory').map((e: any) => e.amount),
    };
  }
  assert.deepEqual(results, {
    // 4 days × 5 = 20 first, so 480 went to the amount; days 5..10 on 520 → 6 × 2.60 = 15.60
    simple_outstanding: { first: [20, 500], punitory: [20, 15.6] },
    // the whole 1000 every day: 10 × 5 = 50
    full_amount: { first: [20, 500], punitory: [20, 30] },
    // 1000 × (1.005⁴ − 1) = 20.1505… → 20.15 first, so 479.85 went to the amount; days 5..10 grow
    // the base 1000 − 479.85 + 20.1505… − 20.15 = 520.1505… by 1.005 a day: × (1.005⁶ − 1) = 15.8009…;
    // cumulative 35.9514… → 35.95, of which 20.15 was posted: 15.80
    compound: { first: [20.15, 500], punitory: [20.15, 15.8] },
  });
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test("a payment's branch: given, explicitly none (null), or the credit's when omitted (none once that branch is deleted)", async (t) => {
  const h = await build(t);
  const p = await plan(h, P35);
  const c = await client(h);
  const home = json(await h.post('/api/branches', { name: 'Casa' }));
  const counter = json(await h.post('/api/branches', { name: 'Mostrador' }));
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-40), branch_id: home.id }); // #1 due 10 days ago
  const branches = (r: any) => [...new Set(r.ledgerEntries.map((e: any) => `${e.type}:${e.branch_id}`))];

  // omitted: the credit's branch, for the punitory posted and the payment
  assert.deepEqual(branches(await pay(h, d.credit.id, { amount: 50 })), [`punitory:${home.id}`, `payment:${home.id}`]);
  // given: that branch for the payment; punitory always carries the credit's
  assert.deepEqual(branches(await pay(h, d.credit.id, { amount: 50, branch_id: counter.id })), [
    `payment:${counter.id}`,
  ]);
  // null: no branch (a bank transfer, say)
  assert.deepEqual(branches(await pay(h, d.credit.id, { amount: 50, branch_id: null })), ['payment:null']);
  // the credit's branch deleted since: omitted means none; naming it is 422
  await h.del(`/api/branches/${home.id}`);
  assert.deepEqual(branches(await pay(h, d.credit.id, { amount: 50 })), ['payment:null']);
  assert.equal(
    (await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 50, branch_id: home.id })).statusCode,
    422,
  );
  // the audit rows carry the same branch as the entries
  const log = json(await h.get('/api/logs?table_name=ledger&action=INSERT&limit=100')).items;
  const entries = json(await h.get(`/api/credits/${d.credit.id}/ledger`));
  for (const e of entries) assert.equal(log.find((x: any) => x.record_id === e.id)?.branch_id, e.branch_id);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

// The write answers are built from what the use case read and wrote, not read back
// (docs/lending-engine.md, "Round trips of a write"): they must equal a read of the credit.
test('a new credit, a payment (with punitory, closing, backdated) and a write-off answer what a read of the credit gives', async (t) => {
  const h = await build(t);
  const p = await plan(h, P35);
  const c = await client(h);
  const read = async (id: string) => {
    const r = await h.get(`/api/credits/${id}`);
    assert.equal(r.statusCode, 200, r.body);
    return json(r);
  };
  const same = async (answer: any, created: number | 'all') => {
    const now = await read(answer.credit.id);
    assert.deepEqual(answer.credit, now.credit);
    assert.deepEqual(answer.installments, now.installments);
    assert.deepEqual(answer.balance, now.balance);
    const tail = created === 'all' ? now.ledgerEntries : now.ledgerEntries.slice(-created);
    assert.deepEqual(answer.ledgerEntries, tail);
  };
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-75) });
  await same(d, 'all');
  // the month close posts installment 1's punitory up to the last month-end (due on day -45)
  const monthEnd = lastMonthEnd(day(0));
  await accrue(h, '--business', h.tenant.businessId);
  // backdated (before the posting): the slice, then a negative correction of the punitory posted
  const r1 = await pay(h, d.credit.id, { amount: 100, paid_on: addDays(monthEnd, -3) });
  assert.ok(
    r1.ledgerEntries.some((e: any) => e.type === 'punitory' && e.amount < 0),
    JSON.stringify(r1.ledgerEntries),
  );
  await same(r1, r1.ledgerEntries.length);
  // today, with installments overdue: the punitory up to today first, then the slices
  const r2 = await pay(h, d.credit.id, { amount: 600 });
  assert.ok(
    r2.ledgerEntries.some((e: any) => e.type === 'punitory'),
    "some e of r2.ledgerEntries: e.type === 'punitory'",
  );
  await same(r2, r2.ledgerEntries.length);
  // everything owed: the credit closes in the same write
  const r3 = await pay(h, d.credit.id, { amount: (await read(d.credit.id)).balance.outstanding });
  assert.equal(r3.credit.status, 'closed');
  await same(r3, r3.ledgerEntries.length);
  // a write-off posts what is owed on the day in the same kind of write
  const e = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-50) });
  const w = await h.post(`/api/credits/${e.credit.id}/write-off`, { reason: 'unreachable' });
  assert.equal(w.statusCode, 200, w.body);
  assert.deepEqual(json(w), (await read(e.credit.id)).credit);
});

test('VAT on punitory: compound grows on the punitory unpaid before its VAT, in every read and posting; a reversed payment leaves its installment pending', async (t) => {
  // 1000 due Monday 2025-03-03, compound 1 % a day, VAT 21 %, written off at 20 days late
  const clock = settableClock('2025-03-04');
  const h = await build(t, { clock });
  const p = await plan(h, {
    installments_count: 1,
    days_until_first_payment: 30,
    daily_punitory_rate: 0.01,
    punitory_mode: 'compound',
    vat_rate: 0.21,
    write_off_days: 20,
  });
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2025-02-01' });
  const id = d.credit.id;
  assert.equal(d.installments[0].due_date, '2025-03-03');
  // day 1: 10.00 net, 12.10 with VAT, all paid
  const paid = await pay(h, id, { amount: 12.1 });
  const paymentId = paid.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;
  assert.equal(paid.installments[0].status, 'partial');
  // day 2 on 1000 + 10 − 10 (the punitory paid before its VAT): 10.00; day 3 on 1010: 10.10;
  // 30.10 net, 36.42 with VAT, of which 12.10 paid
  clock.set('2025-03-06');
  const figures = (i: any) => [i.punitory_posted + i.punitory_accrued, i.paid, i.outstanding, i.status];
  const expected = [36.42, 12.1, 1024.32, 'partial'];
  assert.deepEqual(figures(json(await h.get(`/api/credits/${id}`)).installments[0]), expected);
  assert.deepEqual(figures(json(await h.get(`/api/installments?credit_id=${id}`)).items[0]), expected);
  assert.deepEqual(figures(json(await h.get(`/api/clients/${c.id}`)).installments[0]), expected);
  assert.equal(json(await h.get('/api/reports/summary')).outstanding, 1024.32);

  // reversed: nothing was paid, the installment is pending again; 3 days on 1000: 30.30 net, 36.66
  const res = await h.post(`/api/credits/${id}/payments/${paymentId}/reverse`, { reason: 'bounced' });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(figures(json(res).installments[0]), [36.66, 0, 1036.66, 'pending']);
  assert.deepEqual(figures(json(await h.get(`/api/installments?credit_id=${id}`)).items[0]), [
    36.66,
    0,
    1036.66,
    'pending',
  ]);

  // written off by the daily run at 20 days late, punitory posted up to then with its VAT:
  // 1000 × (1.01^20 − 1) = 220.19 net, 266.43
  clock.set('2025-03-23');
  const run = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(run.code, 0, run.err);
  assert.equal(run.out.businesses[0].written_off, 1);
  const after = json(await h.get(`/api/credits/${id}`));
  assert.equal(after.credit.status, 'written_off');
  assert.deepEqual([after.balance.punitory_posted, after.balance.punitory_accrued], [266.43, 0]);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('business days: an installment due on a Saturday is not late until Monday ends; paid on Tuesday, every day counts', async (t) => {
  const clock = settableClock('2025-03-03'); // a Monday
  const h = await build(t, { clock });
  const p = await plan(h, { installments_count: 1, days_until_first_payment: 30, daily_punitory_rate: 0.005 });
  const c = await client(h);
  const due = async () => {
    const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2025-01-30' });
    assert.equal(d.installments[0].due_date, '2025-03-01'); // a Saturday
    return d.credit.id;
  };
  const [onMonday, onTuesday, open] = [await due(), await due(), await due()];
  // Monday: overdue by 2 days, but nothing owed for them
  const monday = json(await h.get(`/api/credits/${open}`)).installments[0];
  assert.deepEqual([monday.overdue, monday.days_late, monday.punitory_accrued], [true, 2, 0]);
  assert.equal((await pay(h, onMonday, { amount: 1000 })).credit.status, 'closed');
  clock.set('2025-03-04');
  const tuesday = await pay(h, onTuesday, { amount: 1015 }); // 3 days × 5.00
  assert.deepEqual([tuesday.credit.status, tuesday.balance.punitory_posted], ['closed', 15]);
  assert.equal(json(await h.get(`/api/credits/${open}`)).installments[0].punitory_accrued, 15);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});
