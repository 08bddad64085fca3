import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../../helpers/app.ts';
import { accrue, assertLedgerInvariant, client, credit, day, pay, plan } from '../../helpers/book.ts';

const P35 = {
  installments_count: 3,
  interest_rate: 0.35,
  days_until_first_payment: 30,
  cut_type: 'fixed',
  daily_punitory_rate: 0.005,
};

test('manual write-off: punitory posted up to today, then no more; payments are recoveries', async (t) => {
  const h = await build(t);
  const p = await plan(h, P35);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-40) });
  for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 5 }]) {
    assert.equal((await h.post(`/api/credits/${d.credit.id}/write-off`, body)).statusCode, 400, JSON.stringify(body));
  }
  const res = await h.post(`/api/credits/${d.credit.id}/write-off`, { reason: 'client unreachable for 6 months' });
  assert.equal(res.statusCode, 200, res.body);
  const w = json(res);
  assert.equal(w.status, 'written_off');
  assert.equal(w.write_off_reason, 'client unreachable for 6 months');
  assert.ok(w.written_off_at, 'w.written_off_at is set');
  const ledger = json(await h.get(`/api/credits/${d.credit.id}/ledger`));
  assert.deepEqual(
    ledger.filter((e: any) => e.type === 'punitory').map((e: any) => [e.amount, e.effective_date]),
    [[22.5, day(0)]],
  );
  // the daily run has nothing to add
  assert.equal((await accrue(h, '--business', h.tenant.businessId)).out.businesses[0].punitory_entries, 0);
  assert.equal((await h.post(`/api/credits/${d.credit.id}/write-off`, { reason: 'again' })).statusCode, 409);
  assert.equal((await h.post(`/api/credits/${d.credit.id}/cancel`)).statusCode, 409);
  assert.equal((await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: p.id })).statusCode, 409);
  const r = await pay(h, d.credit.id, { amount: 100 });
  assert.equal(r.credit.status, 'written_off');
  assert.equal(r.installments[0].status, 'partial');
  // the audit log names the write-off
  const logs = json(await h.get('/api/logs?table_name=credits&limit=100'));
  assert.ok(
    logs.items.some(
      (l: any) => l.record_id === d.credit.id && l.action === 'UPDATE' && l.new_data.status === 'written_off',
    ),
    'the audit log has the credit UPDATE to written_off',
  );
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('refinance: punitory up to today, the balance settled by refinance entries (no cash), a new credit starting today for at least that balance', async (t) => {
  const h = await build(t);
  const p = await plan(h, P35);
  const p2 = await plan(h, { installments_count: 6, interest_rate: 0.5 });
  const inactive = await plan(h, { is_active: false });
  const c = await client(h);
  const branch = json(await h.post('/api/branches', { name: 'Centro' }));
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-40), branch_id: branch.id });
  await pay(h, d.credit.id, { amount: 100, paid_on: day(-5) }); // 11.25 punitory + 88.75 of #1
  // balance today: #1 450 − 88.75 = 361.25 + punitory days 6..10 on 361.25 = 5 × 1.80625 = 9.03 (rounded cumulative 20.28 − 11.25)
  //   + #2 450 + #3 450 = 1270.28
  const expected = 1270.28;
  assert.equal(
    (await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: p2.id, amount: 1000 })).statusCode,
    422,
  );
  assert.equal(
    (await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: inactive.id })).statusCode,
    422,
  );
  assert.equal((await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: 'x' })).statusCode, 400);
  // the new credit starts the day the old one is settled: another start_date is 422
  for (const start_date of [day(-1), day(1)])
    assert.equal(
      (await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: p2.id, start_date })).statusCode,
      422,
    );
  assert.equal(
    (await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: p2.id, amount: 1.001 })).statusCode,
    400,
  );

  const res = await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: p2.id });
  assert.equal(res.statusCode, 201, res.body);
  const n = json(res);
  assert.equal(n.credit.amount, expected);
  assert.equal(n.credit.total, 1905.42); // 1270.28 × 1.5
  assert.equal(n.credit.refinanced_from_id, d.credit.id);
  assert.equal(n.credit.client_id, c.id);
  assert.equal(n.credit.branch_id, branch.id);
  assert.equal(n.credit.sequential_id, 2);
  assert.equal(n.credit.status, 'active');
  assert.equal(n.credit.start_date, day(0));
  assert.equal(n.installments.length, 6);

  const old = json(await h.get(`/api/credits/${d.credit.id}`));
  assert.equal(old.credit.status, 'refinanced');
  assert.ok(
    old.installments.every((i: any) => i.status === 'paid'),
    "every i of old.installments: i.status === 'paid'",
  );
  const settled = old.ledgerEntries.filter((e: any) => e.type === 'payment' && e.effective_date === day(0));
  // one settlement, not cash: origin refinance, under one id that is no payment of the credit
  assert.ok(
    settled.length > 0 && settled.every((e: any) => e.origin === 'refinance'),
    "holds: settled.length > 0 && settled.every((e) => e.origin === 'refinance')",
  );
  assert.equal(new Set(settled.map((e: any) => e.payment_id)).size, 1);
  assert.ok(
    !json(await h.get(`/api/credits/${d.credit.id}/payments`)).some((p: any) => p.id === settled[0].payment_id),
    "the settled payment is no longer among the credit's payments",
  );
  assert.equal(
    settled.reduce((s: number, e: any) => s + Math.round(e.amount * 100), 0),
    Math.round(expected * 100),
  );
  assert.equal((await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 1 })).statusCode, 409);
  assert.equal((await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: p2.id })).statusCode, 409);

  // more than the balance is fine (new money lent on top)
  const n2 = json(
    await h.post(`/api/credits/${n.credit.id}/refinance`, { credit_config_id: p.id, amount: 5000, start_date: day(0) }),
  );
  assert.equal(n2.credit.amount, 5000);
  assert.equal(n2.credit.refinanced_from_id, n.credit.id);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('cancel: only an active credit with no payment and no installment due yet; it becomes inactive and leaves the worklist', async (t) => {
  const h = await build(t);
  const p = await plan(h, P35);
  const c = await client(h);
  // a: granted 10 days ago, first due in 20 days; b: the same with a payment; late: its first
  // installment was due 10 days ago; dueToday: due today (not late, but due); undone: its only
  // payment was reversed
  const a = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-10) });
  const b = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-10) });
  const late = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-40) });
  const dueToday = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-30) });
  const undone = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-10) });
  await pay(h, b.credit.id, { amount: 10 });
  const paid = await pay(h, undone.credit.id, { amount: 10 });
  const paymentId = paid.ledgerEntries.find((e: any) => e.type === 'payment').payment_id;
  const reversed = await h.post(`/api/credits/${undone.credit.id}/payments/${paymentId}/reverse`, {
    reason: 'bounced',
  });
  assert.equal(reversed.statusCode, 200, reversed.body);
  const worklist = async () =>
    new Set(json(await h.get('/api/installments?limit=100')).items.map((i: any) => i.credit_id));
  assert.ok((await worklist()).has(a.credit.id), 'holds: (await worklist()).has(a.credit.id)');

  const res = await h.post(`/api/credits/${a.credit.id}/cancel`);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).status, 'inactive');
  assert.equal((await h.post(`/api/credits/${a.credit.id}/cancel`)).statusCode, 409);
  assert.equal((await h.post(`/api/credits/${b.credit.id}/cancel`)).statusCode, 409); // has a payment
  assert.equal((await h.post(`/api/credits/${late.credit.id}/cancel`)).statusCode, 409); // an installment is due
  assert.equal((await h.post(`/api/credits/${dueToday.credit.id}/cancel`)).statusCode, 409); // due today
  const again = await h.post(`/api/credits/${undone.credit.id}/cancel`); // a reversed payment does not count
  assert.equal(again.statusCode, 200, again.body);
  assert.equal((await h.post(`/api/credits/${b.credit.id}/cancel`, undefined, h.tenant.readKey)).statusCode, 403);
  const stranger = await h.newTenant();
  assert.equal((await h.post(`/api/credits/${b.credit.id}/cancel`, undefined, stranger.fullKey)).statusCode, 404);
  // its installments stay as history
  assert.equal(json(await h.get(`/api/credits/${a.credit.id}`)).installments.length, 3);
  const left = await worklist();
  assert.ok(
    !left.has(a.credit.id) && !left.has(undone.credit.id) && left.has(b.credit.id) && left.has(late.credit.id),
    'only b and late are left; a and the undone one are not',
  );
  // and the daily run leaves it alone
  await accrue(h, '--business', h.tenant.businessId);
  const ledger = json(await h.get(`/api/credits/${a.credit.id}/ledger`));
  assert.ok(
    ledger.every((e: any) => e.type === 'installment'),
    "every e of ledger: e.type === 'installment'",
  );
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('collections worklist: overdue installments, most days late first, with client and credit number', async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 2, days_until_first_payment: 30 });
  const c1 = await client(h);
  const c2 = await client(h);
  const north = json(await h.post('/api/branches', { name: 'Norte' }));
  const a = await credit(h, c1.id, { credit_config_id: p.id, amount: 100, start_date: day(-50) }); // #1 20 days late, #2 due in ~10
  const b = await credit(h, c2.id, { credit_config_id: p.id, amount: 100, start_date: day(-100), branch_id: north.id }); // 70 and ~40 late
  await credit(h, c2.id, { credit_config_id: p.id, amount: 100 }); // not due

  const page = json(await h.get('/api/installments?overdue=true', h.tenant.readKey));
  assert.equal(page.total, 3);
  assert.deepEqual(
    page.items.map((i: any) => [i.credit_sequential_id, i.number, i.client_id, i.overdue]),
    [
      [2, 1, c2.id, true],
      [2, 2, c2.id, true],
      [1, 1, c1.id, true],
    ],
  );
  assert.equal(page.items[0].days_late, 70);
  assert.equal(page.items[2].days_late, 20);
  assert.deepEqual([page.limit, page.offset], [50, 0]);

  assert.deepEqual(
    json(await h.get(`/api/installments?overdue=true&branch_id=${north.id}`)).items.map((i: any) => i.credit_id),
    [b.credit.id, b.credit.id],
  );
  // the bound: an installment exactly N days late is in, at N + 1 it is out (on the overdue list, read
  // as a due date, and on the whole list alike)
  for (const overdue of ['overdue=true&', '']) {
    const total = async (n: number) => json(await h.get(`/api/installments?${overdue}min_days_late=${n}`)).total;
    assert.deepEqual([await total(20), await total(21), await total(70), await total(71)], [3, 2, 1, 0], overdue);
  }
  assert.deepEqual(
    json(await h.get('/api/installments?overdue=true&min_days_late=30')).items.map((i: any) => i.days_late >= 30),
    [true, true],
  );
  const second = json(await h.get('/api/installments?overdue=true&limit=1&offset=1'));
  assert.deepEqual([second.total, second.items.length, second.items[0].number], [3, 1, 2]);
  assert.equal(json(await h.get('/api/installments')).total, 6);
  assert.equal(json(await h.get('/api/installments?overdue=false')).total, 3);
  for (const q of ['overdue=maybe', 'min_days_late=-1', 'limit=0', 'limit=101', 'branch_id=nope', 'what=1']) {
    assert.equal((await h.get(`/api/installments?${q}`)).statusCode, 400, q);
  }
  // paying the oldest one takes it off the list
  await pay(h, b.credit.id, { amount: 50 });
  assert.deepEqual(
    json(await h.get('/api/installments?overdue=true')).items.map((i: any) => [i.credit_sequential_id, i.number]),
    [
      [2, 2],
      [1, 1],
    ],
  );
  assert.equal(json(await h.get('/api/installments?overdue=true', (await h.newTenant()).readKey)).total, 0);
  void a;
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('refinance: branch_id and origin_transaction_reference of the new credit, checked like a new credit', async (t) => {
  const h = await build(t);
  const p = await plan(h, P35);
  const c = await client(h);
  const old = json(await h.post('/api/branches', { name: 'Vieja' }));
  const other = json(await h.post('/api/branches', { name: 'Nueva' }));
  const gone = json(await h.post('/api/branches', { name: 'Cerrada' }));
  await h.del(`/api/branches/${gone.id}`);
  const stranger = await h.newTenant();
  const theirs = json(await h.post('/api/branches', { name: 'theirs' }, stranger.fullKey));
  const open = async () =>
    (await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-40), branch_id: old.id })).credit;
  const refinance = (id: string, body: Record<string, unknown>) =>
    h.post(`/api/credits/${id}/refinance`, { credit_config_id: p.id, ...body });

  // refused: each a 4xx that leaves the old credit active and the book untouched
  const d = await open();
  const ledgerBefore = json(await h.get(`/api/credits/${d.id}/ledger`));
  for (const [body, status, path] of [
    [{ branch_id: gone.id }, 422, '/branch_id'],
    [{ branch_id: theirs.id }, 422, '/branch_id'],
    [{ branch_id: '00000000-0000-4000-8000-000000000000' }, 422, '/branch_id'],
    [{ branch_id: 'nope' }, 400, undefined],
    [{ origin_transaction_reference: 'x'.repeat(201) }, 400, undefined],
    [{ origin_transaction_reference: 7 }, 400, undefined],
  ] as const) {
    const res = await refinance(d.id, body);
    assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
    if (path) assert.equal(json(res).details?.[0]?.path, path);
  }
  assert.equal(json(await h.get(`/api/credits/${d.id}`)).credit.status, 'active');
  assert.deepEqual(json(await h.get(`/api/credits/${d.id}/ledger`)), ledgerBefore);

  // given: the new credit takes that branch and the (trimmed) reference; the settlement stays on the old credit's branch
  const moved = json(await refinance(d.id, { branch_id: other.id, origin_transaction_reference: '  REF-9 ' }));
  assert.equal(moved.credit.branch_id, other.id);
  assert.equal(moved.credit.origin_transaction_reference, 'REF-9');
  assert.ok(
    moved.ledgerEntries.every((e: any) => e.branch_id === other.id),
    'every e of moved.ledgerEntries: e.branch_id === other.id',
  );
  const settled = json(await h.get(`/api/credits/${d.id}/ledger`)).filter((e: any) => e.type === 'payment');
  assert.ok(
    settled.length > 0 && settled.every((e: any) => e.branch_id === old.id),
    'holds: settled.length > 0 && settled.every((e) => e.branch_id === old.id)',
  );

  // null: no branch; omitted: the old credit's; an empty reference is none
  const none = json(await refinance((await open()).id, { branch_id: null, origin_transaction_reference: '  ' }));
  assert.deepEqual([none.credit.branch_id, none.credit.origin_transaction_reference], [null, null]);
  assert.ok(
    none.ledgerEntries.every((e: any) => e.branch_id === null),
    'every e of none.ledgerEntries: e.branch_id === null',
  );
  const kept = json(await refinance((await open()).id, {}));
  assert.deepEqual([kept.credit.branch_id, kept.credit.origin_transaction_reference], [old.id, null]);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});
