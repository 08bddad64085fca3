import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../../helpers/app.ts';
import { assertLedgerInvariant, client, credit, day, plan, todayUtc } from '../../helpers/book.ts';

test('3 installments at 35 % on 1000: total 1350, 450 × 3, fixed due dates a month apart, one ledger entry each', async (t) => {
  const h = await build(t);
  const p = await plan(h, {
    installments_count: 3,
    interest_rate: 0.35,
    days_until_first_payment: 30,
    cut_type: 'fixed',
  });
  const c = await client(h);
  const d = await credit(h, c.id, {
    credit_config_id: p.id,
    amount: 1000,
    start_date: '2024-01-01',
    origin_transaction_reference: 'ERP-1',
  });
  assert.equal(d.credit.amount, 1000);
  assert.equal(d.credit.total, 1350);
  assert.equal(d.credit.status, 'active');
  assert.equal(d.credit.sequential_id, 1);
  assert.equal(d.credit.client_id, c.id);
  assert.equal(d.credit.credit_config_id, p.id);
  assert.equal(d.credit.origin_transaction_reference, 'ERP-1');
  assert.equal(d.credit.created_by, `api_key:${h.tenant.fullKeyId}`);
  assert.equal(d.credit.start_date, '2024-01-01');
  // 2024-01-01 + 30 days = 2024-01-31; then Feb 29 (clamped, leap year) and Mar 31 (counted from the first, not chained)
  assert.deepEqual(
    d.installments.map((i: any) => [i.number, i.amount, i.due_date, i.status]),
    [
      [1, 450, '2024-01-31', 'pending'],
      [2, 450, '2024-02-29', 'pending'],
      [3, 450, '2024-03-31', 'pending'],
    ],
  );
  // long past due: overdue, days_late counted to today
  const today = todayUtc();
  for (const i of d.installments) {
    assert.equal(i.overdue, true);
    assert.equal(i.days_late, Math.round((Date.parse(today) - Date.parse(i.due_date)) / 86_400_000));
  }
  assert.deepEqual(
    d.ledgerEntries.map((e: any) => [e.type, e.amount, e.effective_date, e.installment_id]),
    d.installments.map((i: any) => ['installment', 450, '2024-01-01', i.id]),
  );
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('the remainder goes to the last installment; monthly due dates on payment_day', async (t) => {
  const h = await build(t);
  // 1000 × 1.1 = 1100 / 3 = 366.666… → 366.67, 366.67, 366.66
  const p = await plan(h, {
    installments_count: 3,
    interest_rate: 0.1,
    cut_type: 'monthly',
    payment_day: 10,
    days_until_first_payment: 20,
  });
  const c = await client(h);
  // 2024-01-25 + 20 = 2024-02-14 → first 10th on or after it: 2024-03-10
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-25' });
  assert.deepEqual(
    d.installments.map((i: any) => [i.amount, i.due_date]),
    [
      [366.67, '2024-03-10'],
      [366.67, '2024-04-10'],
      [366.66, '2024-05-10'],
    ],
  );
  assert.equal(d.credit.total, 1100);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('read, list and the contract endpoints 1–3 return the real book', async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 2 });
  const c1 = await client(h);
  const c2 = await client(h);
  const a = await credit(h, c1.id, { credit_config_id: p.id, amount: 100, start_date: day(0) });
  const b = await credit(h, c1.id, { credit_config_id: p.id, amount: 200, start_date: day(0) });
  const other = await credit(h, c2.id, { credit_config_id: p.id, amount: 300, start_date: day(0) });
  assert.deepEqual([a.credit.sequential_id, b.credit.sequential_id, other.credit.sequential_id], [1, 2, 3]);

  const read = await h.get(`/api/credits/${a.credit.id}`, h.tenant.readKey);
  assert.equal(read.statusCode, 200);
  assert.deepEqual(json(read), a);
  // due in the future: not overdue
  assert.deepEqual(
    json(read).installments.map((i: any) => [i.overdue, i.days_late]),
    [
      [false, 0],
      [false, 0],
    ],
  );

  const page = json(await h.get('/api/credits?limit=2'));
  assert.equal(page.total, 3);
  assert.deepEqual(
    page.items.map((x: any) => x.sequential_id),
    [3, 2],
  );
  assert.deepEqual(
    json(await h.get(`/api/credits?client_id=${c1.id}`)).items.map((x: any) => x.id),
    [b.credit.id, a.credit.id],
  );
  assert.equal(json(await h.get('/api/credits?status=closed')).total, 0);
  assert.equal((await h.get('/api/credits?status=nope')).statusCode, 400);

  // GET /api/clients/{id}: the client with its credits, installments and ledger
  const detail = json(await h.get(`/api/clients/${c1.id}`, h.tenant.readKey));
  assert.deepEqual(
    detail.credits.map((x: any) => x.id),
    [a.credit.id, b.credit.id],
  );
  assert.equal(detail.installments.length, 4);
  assert.equal(detail.ledgerEntries.length, 4);
  assert.ok(
    detail.installments.every((i: any) => typeof i.overdue === 'boolean' && Number.isInteger(i.days_late)),
    'every installment says overdue (boolean) and days_late (integer)',
  );
  // GET /api/clients/{clientId}/credits
  assert.deepEqual(
    json(await h.get(`/api/clients/${c1.id}/credits`)).map((x: any) => x.id),
    [a.credit.id, b.credit.id],
  );
  // GET /api/credits/{id}/ledger
  const ledger = json(await h.get(`/api/credits/${b.credit.id}/ledger`, h.tenant.readKey));
  assert.deepEqual(
    ledger.map((e: any) => [e.type, e.amount]),
    [
      ['installment', 100],
      ['installment', 100],
    ],
  );

  // another business sees none of it
  const stranger = await h.newTenant();
  assert.equal((await h.get(`/api/credits/${a.credit.id}`, stranger.fullKey)).statusCode, 404);
  assert.equal((await h.get(`/api/credits/${a.credit.id}/ledger`, stranger.fullKey)).statusCode, 404);
  assert.equal(json(await h.get('/api/credits', stranger.fullKey)).total, 0);
  assert.equal((await h.get('/api/credits/not-a-uuid')).statusCode, 404);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test("the plan's terms are a snapshot: editing the plan changes no credit", async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 2, interest_rate: 0.2, daily_punitory_rate: 0.01 });
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 500, start_date: day(0) });
  assert.equal(
    (
      await h.put(`/api/credit-configs/${p.id}`, {
        interest_rate: 0.9,
        daily_punitory_rate: 0.5,
        installments_count: 6,
      })
    ).statusCode,
    200,
  );
  const row = await h.db.kysely
    .selectFrom('credits')
    .selectAll()
    .where('id', '=', d.credit.id)
    .executeTakeFirstOrThrow();
  assert.equal(Number(row.interest_rate), 0.2);
  assert.equal(Number(row.daily_punitory_rate), 0.01);
  assert.equal(row.installments_count, 2);
  assert.deepEqual(json(await h.get(`/api/credits/${d.credit.id}`)), d);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('credit creation refusals: each a clear 4xx that changes nothing', async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 3 });
  const inactive = await plan(h, { is_active: false });
  const c = await client(h);
  const stranger = await h.newTenant();
  const strangerPlan = json(await h.post('/api/credit-configs', { name: 'theirs' }, stranger.fullKey));
  const strangerBranch = json(await h.post('/api/branches', { name: 'theirs' }, stranger.fullKey));
  const strangerClient = json(await h.post('/api/clients', { dni: '999' }, stranger.fullKey));
  const branch = json(await h.post('/api/branches', { name: 'Centro' }));
  const deleted = json(await h.post('/api/branches', { name: 'Cerrada' }));
  assert.equal((await h.del(`/api/branches/${deleted.id}`)).statusCode, 200);

  const cases: [Record<string, unknown>, number, string?][] = [
    [{ credit_config_id: inactive.id, amount: 100 }, 422],
    [{ credit_config_id: strangerPlan.id, amount: 100 }, 422],
    [{ credit_config_id: '00000000-0000-4000-8000-000000000000', amount: 100 }, 422],
    [{ credit_config_id: p.id, amount: 100, branch_id: deleted.id }, 422],
    [{ credit_config_id: p.id, amount: 100, branch_id: strangerBranch.id }, 422],
    [{ credit_config_id: p.id, amount: 0 }, 422],
    [{ credit_config_id: p.id, amount: -5 }, 422],
    [{ credit_config_id: p.id, amount: 0.02 }, 422], // 0.02 over 3 installments: one would be 0
    [{ credit_config_id: p.id, amount: 10.005 }, 400],
    [{ credit_config_id: p.id, amount: '100' }, 400],
    [{ credit_config_id: p.id, amount: 100, start_date: '2024-02-30' }, 400],
    [{ credit_config_id: p.id, amount: 100, extra: 1 }, 400],
    [{ credit_config_id: 'nope', amount: 100 }, 400],
    [{ amount: 100 }, 400],
  ];
  for (const [body, status] of cases) {
    const res = await h.post(`/api/clients/${c.id}/credits`, body);
    assert.equal(res.statusCode, status, `${JSON.stringify(body)} → ${res.body}`);
    assert.equal(typeof json(res).error, 'string');
  }
  assert.equal(
    (await h.post(`/api/clients/${strangerClient.id}/credits`, { credit_config_id: p.id, amount: 100 })).statusCode,
    404,
  );
  assert.equal(
    (await h.post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 100 }, h.tenant.readKey))
      .statusCode,
    403,
  );
  assert.equal(json(await h.get('/api/credits')).total, 0);

  // nothing consumed a number: the first credit is #1, on a live branch
  const ok = await credit(h, c.id, { credit_config_id: p.id, amount: 100, branch_id: branch.id });
  assert.equal(ok.credit.sequential_id, 1);
  assert.equal(ok.credit.branch_id, branch.id);
  assert.ok(
    ok.ledgerEntries.every((e: any) => e.branch_id === branch.id),
    'every e of ok.ledgerEntries: e.branch_id === branch.id',
  );
  assert.equal(ok.credit.start_date, todayUtc());
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('every ledger entry of a multi-row write has its audit row: same columns, insertion order, the writer as actor', async (t) => {
  const h = await build(t);
  const branch = json(await h.post('/api/branches', { name: 'Centro' }));
  const p = await plan(h, { installments_count: 4, days_until_first_payment: 10, daily_punitory_rate: 0.01 });
  const c = await client(h);
  const d = await credit(h, c.id, {
    credit_config_id: p.id,
    amount: 1000,
    start_date: day(-100),
    branch_id: branch.id,
  });
  // a payment writes punitory for the overdue installments and payment slices in two statements
  const paid = json(await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 800 }));
  const entries = [...d.ledgerEntries, ...paid.ledgerEntries];
  assert.ok(
    paid.ledgerEntries.filter((e: any) => e.type === 'punitory').length >= 3,
    "holds: paid.ledgerEntries.filter((e) => e.type === 'punitory').length >= 3",
  );
  assert.ok(
    paid.ledgerEntries.filter((e: any) => e.type === 'payment').length >= 2,
    "holds: paid.ledgerEntries.filter((e) => e.type === 'payment').length >= 2",
  );

  const log = json(await h.get('/api/logs?table_name=ledger&limit=100')).items;
  const byRecord = new Map(log.map((x: any) => [x.record_id, x]));
  assert.equal(log.length, entries.length);
  assert.equal(byRecord.size, entries.length, 'one audit row per entry');
  for (const e of entries) {
    const x: any = byRecord.get(e.id);
    assert.ok(x, `entry ${e.id} audited`);
    assert.equal(x.action, 'INSERT');
    assert.equal(x.business_id, h.tenant.businessId);
    assert.equal(x.branch_id, branch.id);
    assert.equal(x.actor, `api_key:${h.tenant.fullKeyId}`);
    assert.equal(x.old_data, null);
    assert.equal(x.new_data.id, e.id);
    assert.equal(x.new_data.type, e.type);
    assert.equal(Number(x.new_data.amount), e.amount);
    assert.equal(x.new_data.installment_id, e.installment_id);
  }
  // logged in the order the entries were written (the embedded database's clock may give ties)
  const times = entries.map((e: any) => Date.parse((byRecord.get(e.id) as any).changed_at));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => a - b),
  );
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});
