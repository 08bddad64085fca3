import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, createTenant, json } from '../helpers/app.ts';
import { openEmbedded } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { insertCreditConfig } from '../../src/db/repositories/creditConfigs.ts';
import { insertClient } from '../../src/db/repositories/clients.ts';
import { ledgerOfCredits } from '../../src/db/repositories/ledger.ts';
import { createCredit } from '../../src/services/lending.ts';
import { systemClock, todayIn } from '../../src/domain/index.ts';
import { actorContext } from '../../src/services/context.ts';
import { startAccrualSchedule } from '../../src/jobs/accrual.ts';
import { loadConfig } from '../../src/config.ts';
import { accrue, assertLedgerInvariant, client, credit, day, pay, plan } from './helpers.ts';

// One installment of 1000 (no interest), 0.5 % a day: 5.00 a day while unpaid.
const ONE = { installments_count: 1, days_until_first_payment: 30, daily_punitory_rate: 0.005 };
const punitory = async (h: any, creditId: string) =>
  json(await h.get(`/api/credits/${creditId}/ledger`))
    .filter((e: any) => e.type === 'punitory')
    .map((e: any) => [e.amount, e.effective_date]);

test('the daily run posts cumulative − posted, effective on its date; running it again posts nothing', async (t) => {
  const h = await build(t);
  const p = await plan(h, ONE);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-40) }); // due 10 days ago
  const future = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(0) }); // not due

  const first = await accrue(h, '--as-of', day(-4), '--business', h.tenant.businessId);
  assert.equal(first.code, 0, first.err);
  assert.deepEqual(first.out.businesses[0], {
    business_id: h.tenant.businessId,
    as_of: day(-4),
    credits_accrued: 1,
    punitory_entries: 1,
    punitory_total: 30, // 6 days × 5 (money is a JSON number in --json output)
    written_off: 0,
  });
  const second = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(second.out.businesses[0].punitory_total, 20); // days 7..10
  const third = await accrue(h, '--business', h.tenant.businessId);
  assert.deepEqual([third.out.businesses[0].credits_accrued, third.out.businesses[0].punitory_entries], [0, 0]);
  // a date before the last posting never takes anything back; a future date is clamped to today
  assert.equal(
    (await accrue(h, '--as-of', day(-8), '--business', h.tenant.businessId)).out.businesses[0].punitory_entries,
    0,
  );
  const ahead = await accrue(h, '--as-of', day(30), '--business', h.tenant.businessId);
  assert.deepEqual([ahead.out.businesses[0].as_of, ahead.out.businesses[0].punitory_entries], [day(0), 0]);

  assert.deepEqual(await punitory(h, d.credit.id), [
    [30, day(-4)],
    [20, day(0)],
  ]);
  assert.deepEqual(await punitory(h, future.credit.id), []);
  // the entries are the daily run's: created_by names it
  const entries = json(await h.get(`/api/credits/${d.credit.id}/ledger`)).filter((e: any) => e.type === 'punitory');
  assert.ok(entries.every((e: any) => e.created_by === 'cli'));
  // the installment now owes 1050: paying it closes the credit
  assert.equal((await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 1050.01 })).statusCode, 422);
  assert.equal((await pay(h, d.credit.id, { amount: 1050 })).credit.status, 'closed');
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('max_punitory_days and punitory_cap_pct bound the posting', async (t) => {
  const h = await build(t);
  const c = await client(h);
  const maxed = await credit(h, c.id, {
    credit_config_id: (await plan(h, { ...ONE, max_punitory_days: 7 })).id,
    amount: 1000,
    start_date: day(-60),
  });
  const capped = await credit(h, c.id, {
    credit_config_id: (await plan(h, { ...ONE, punitory_cap_pct: 50 })).id,
    amount: 1000,
    start_date: day(-230),
  });
  const free = await credit(h, c.id, {
    credit_config_id: (await plan(h, ONE)).id,
    amount: 1000,
    start_date: day(-230),
  });
  await accrue(h, '--business', h.tenant.businessId);
  assert.deepEqual(await punitory(h, maxed.credit.id), [[35, day(0)]]); // 7 of 30 days × 5
  assert.deepEqual(await punitory(h, capped.credit.id), [[500, day(0)]]); // 200 days × 5 = 1000, capped at 50 % of 1000
  assert.deepEqual(await punitory(h, free.credit.id), [[1000, day(0)]]);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('automatic write-off: written off on the day the rule is met; accrual stops; recoveries are accepted', async (t) => {
  const h = await build(t);
  const p = await plan(h, { ...ONE, write_off_days: 15 });
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-60) }); // due 30 days ago
  const young = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-40) }); // due 10 days ago

  // as of 10 days ago the first was 20 days late (≥ 15); the second was not due yet
  const run = await accrue(h, '--as-of', day(-10), '--business', h.tenant.businessId);
  assert.equal(run.out.businesses[0].written_off, 1);
  const cr = json(await h.get(`/api/credits/${d.credit.id}`)).credit;
  assert.equal(cr.status, 'written_off');
  assert.match(cr.write_off_reason, /15 days late/);
  assert.equal(todayIn('UTC', new Date(cr.written_off_at)), day(-10));
  assert.deepEqual(await punitory(h, d.credit.id), [[100, day(-10)]]); // 20 days × 5, then nothing more

  // today: the young one is 10 days late (< 15) and stays active; the written-off one accrues no more
  const today = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(today.out.businesses[0].written_off, 0);
  assert.deepEqual(await punitory(h, d.credit.id), [[100, day(-10)]]);
  assert.deepEqual(await punitory(h, young.credit.id), [[50, day(0)]]);
  assert.equal(json(await h.get(`/api/credits/${young.credit.id}`)).credit.status, 'active');

  // a recovery: accepted, the credit stays written off even once paid in full
  const r = await pay(h, d.credit.id, { amount: 1100 });
  assert.deepEqual(
    r.ledgerEntries.map((e: any) => [e.type, e.amount]),
    [['payment', 1100]],
  );
  assert.equal(r.credit.status, 'written_off');
  assert.equal(r.installments[0].status, 'paid');
  // it is no longer in anyone's way: manual write-off of it is a conflict
  assert.equal((await h.post(`/api/credits/${d.credit.id}/write-off`, { reason: 'x' })).statusCode, 409);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('each business is accrued as of its own today', async (t) => {
  const h = await build(t);
  const east = await h.newTenant({ timezone: 'Pacific/Kiritimati' }); // UTC+14
  const west = await h.newTenant({ timezone: 'Pacific/Pago_Pago' }); // UTC−11
  // (one business at a time: other test files share this database)
  for (const [id, tz] of [
    [east.businessId, 'Pacific/Kiritimati'],
    [west.businessId, 'Pacific/Pago_Pago'],
    [h.tenant.businessId, 'UTC'],
  ] as const) {
    const run = await accrue(h, '--business', id);
    assert.equal(run.code, 0, run.err);
    assert.equal(run.out.businesses[0].as_of, todayIn(tz));
  }
});

test('the command line refuses bad options with exit code 2', async (t) => {
  const h = await build(t);
  for (const args of [
    ['--as-of', '2024-02-30'],
    ['--as-of', 'yesterday'],
    ['--business', 'nope'],
    ['--business', '00000000-0000-4000-8000-000000000000'],
  ]) {
    const r = await accrue(h, ...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, /error: /);
  }
});

test('the server scheduler runs the accrual on its cron schedule; "off" runs nothing', async (t) => {
  // its own embedded database: the scheduler accrues every business, and other test files share the test database
  const db = await openEmbedded(null);
  t.after(() => db.close());
  await migrate(db);
  const tenant = await createTenant(db);
  const ctx = actorContext({ businessId: tenant.businessId, timezone: 'UTC' }, 'cli', systemClock);
  const p = await insertCreditConfig(db.kysely, tenant.businessId, {
    name: 'p',
    installments_count: 1,
    days_until_first_payment: 30,
    daily_punitory_rate: '0.005',
  });
  const c = await insertClient(db.kysely, tenant.businessId, { dni: '1' });
  const d = await createCredit(db.kysely, ctx, {
    clientId: c.id,
    creditConfigId: p.id,
    amount: 1000,
    startDate: day(-40),
  });
  const posted = async () =>
    (await ledgerOfCredits(db.kysely, tenant.businessId, [d.credit.id])).filter((e) => e.type === 'punitory');
  const silent = {
    info() {},
    error() {},
    warn() {},
    debug() {},
    trace() {},
    fatal() {},
    child() {
      return this;
    },
    level: 'silent',
  } as any;

  const off = startAccrualSchedule(db, loadConfig({ ACCRUAL_SCHEDULE: 'off', DATA_DIR: '/tmp' }), silent);
  off();
  assert.deepEqual(await posted(), []);
  const stop = startAccrualSchedule(db, loadConfig({ ACCRUAL_SCHEDULE: '* * * * * *', DATA_DIR: '/tmp' }), silent); // every second
  t.after(stop);
  // wait for the first tick to post (no assertion on how long it takes)
  for (let k = 0; k < 100 && (await posted()).length === 0; k++) await new Promise((r) => setTimeout(r, 100));
  stop();
  assert.deepEqual(
    (await posted()).map((e) => [e.amount, e.effective_date, e.created_by]),
    [['50.00', day(0), 'system:accrual']],
  );
  await assertLedgerInvariant(db, tenant.businessId);
});

test('accruing writes no credits UPDATE to the audit log and keeps updated_at, unless the status changes', async (t) => {
  const h = await build(t);
  const p = await plan(h, ONE);
  const wo = await plan(h, { ...ONE, write_off_days: 15 });
  const c = await client(h);
  const late = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-40) }); // due 10 days ago
  const partly = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-45) }); // due 15 days ago
  const paidLater = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-38) }); // due 8 days ago
  const writtenOff = await credit(h, c.id, { credit_config_id: wo.id, amount: 1000, start_date: day(-60) }); // due 30 days ago
  await pay(h, partly.credit.id, { amount: 300, paid_on: day(-12) });
  const ids = [late, partly, paidLater, writtenOff].map((d) => d.credit.id);
  const read = async () => Promise.all(ids.map(async (id) => json(await h.get(`/api/credits/${id}`)).credit));
  const creditUpdates = async () => json(await h.get('/api/logs?table_name=credits&action=UPDATE&limit=100')).items;
  const before = await read();
  const updatesBefore = await creditUpdates();

  // a daily run, a payment that posts punitory up to today (moving that credit's watermark), a second run
  assert.equal(
    (await accrue(h, '--as-of', day(-5), '--business', h.tenant.businessId)).out.businesses[0].written_off,
    1,
  );
  const payment = await pay(h, paidLater.credit.id, { amount: 100 });
  assert.deepEqual(
    payment.ledgerEntries.map((e: any) => e.type),
    ['punitory', 'payment'],
  );
  const today = (await accrue(h, '--business', h.tenant.businessId)).out.businesses[0];
  // the written-off one accrues no more; the paid one is accrued through today already
  assert.deepEqual([today.credits_accrued, today.punitory_entries], [2, 2]);

  const after = await read();
  for (const [i, b] of before.entries()) {
    const a = after[i]!;
    if (a.id === writtenOff.credit.id) continue;
    assert.equal(a.status, b.status);
    assert.equal(a.updated_at, b.updated_at, `credit #${a.sequential_id}: updated_at unchanged`);
  }
  // the only credits UPDATE is the write-off, a status change
  const seen = new Set(updatesBefore.map((e: any) => e.id));
  const updates = (await creditUpdates()).filter((e: any) => !seen.has(e.id));
  assert.deepEqual(
    updates.map((e: any) => [e.record_id, e.old_data.status, e.new_data.status]),
    [[writtenOff.credit.id, 'active', 'written_off']],
  );
  assert.notEqual(after[3].updated_at, before[3].updated_at);
  // what was posted is still audited: one ledger INSERT per punitory entry
  const ledgerLog = json(await h.get('/api/logs?table_name=ledger&action=INSERT&limit=100')).items;
  for (const id of ids) {
    const posted = json(await h.get(`/api/credits/${id}/ledger`)).filter((e: any) => e.type === 'punitory');
    assert.ok(posted.length > 0);
    for (const e of posted)
      assert.ok(
        ledgerLog.some((x: any) => x.record_id === e.id && x.new_data.type === 'punitory'),
        `ledger entry ${e.id} audited`,
      );
  }
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});
