import { test } from 'node:test';
import { sql } from 'kysely';
import assert from 'node:assert/strict';
import { build, createTenant, json, settableClock } from '../../helpers/app.ts';
import { openEmbedded } from '../../../src/db/connection.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { insertCreditConfig } from '../../../src/db/repositories/creditConfigs.ts';
import { insertClient } from '../../../src/db/repositories/clients.ts';
import { ledgerOfCredits } from '../../../src/db/repositories/ledger.ts';
import { createCredit } from '../../../src/services/lending/grant.ts';
import { actorContext } from '../../../src/services/context.ts';
import { startAccrualSchedule } from '../../../src/jobs/accrual.ts';
import { loadConfig } from '../../../src/config.ts';
import { accrue, assertLedgerInvariant, client, credit, pay, plan } from '../../helpers/book.ts';

// One installment of 1000 (no interest), 0.5 % a day: 5.00 a day while unpaid.
const ONE = { installments_count: 1, days_until_first_payment: 30, daily_punitory_rate: 0.005 };
const punitory = async (h: any, creditId: string) =>
  json(await h.get(`/api/credits/${creditId}/ledger`))
    .filter((e: any) => e.type === 'punitory')
    .map((e: any) => [e.amount, e.effective_date]);
/** What a read shows of the credit's punitory: posted, and accrued since the last posting. */
const shown = async (h: any, creditId: string) => {
  const b = json(await h.get(`/api/credits/${creditId}`)).balance;
  return [b.punitory_posted, b.punitory_accrued];
};

test('the month close posts cumulative − posted, effective the last day of the ended month; the rest of the month posts nothing', async (t) => {
  const clock = settableClock('2024-03-15');
  const h = await build(t, { clock });
  const p = await plan(h, ONE);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-20' }); // due 2024-02-19
  const future = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-03-15' }); // due 2024-04-14
  const bid = h.tenant.businessId;

  const first = await accrue(h, '--business', bid);
  assert.equal(first.code, 0, first.err);
  assert.deepEqual(first.out.businesses[0], {
    business_id: bid,
    as_of: '2024-03-15',
    closed_through: '2024-02-29',
    credits_accrued: 1,
    punitory_entries: 1,
    punitory_total: 50, // 10 days (Feb 20..29) × 5 (money is a JSON number in --json output)
    charge_entries: 0,
    written_off: 0,
    overdue_announced: 1, // a business's first run announces every installment late by then (d's first)
    promises_broken: 0,
    clamped: 0,
    skipped: 0,
  });
  // a read adds what accrued since: March 1..15
  assert.deepEqual(await shown(h, d.credit.id), [50, 75]);
  // again, and every other day of March: nothing to do
  for (const today of ['2024-03-15', '2024-03-16', '2024-03-31']) {
    clock.set(today);
    const r = (await accrue(h, '--business', bid)).out.businesses[0];
    assert.deepEqual([r.closed_through, r.credits_accrued, r.punitory_entries], ['2024-02-29', 0, 0], today);
  }
  assert.deepEqual(await shown(h, d.credit.id), [50, 155]);
  // April 1st closes March: one entry for the month
  clock.set('2024-04-01');
  const april = (await accrue(h, '--business', bid)).out.businesses[0];
  assert.deepEqual([april.closed_through, april.punitory_entries, april.punitory_total], ['2024-03-31', 1, 155]);
  assert.deepEqual(await shown(h, d.credit.id), [205, 5]); // and April 1st itself
  // a date before the last close never takes anything back; a future date is clamped to today
  assert.equal((await accrue(h, '--as-of', '2024-03-10', '--business', bid)).out.businesses[0].punitory_entries, 0);
  const ahead = (await accrue(h, '--as-of', '2024-06-30', '--business', bid)).out.businesses[0];
  assert.deepEqual([ahead.as_of, ahead.closed_through, ahead.punitory_entries], ['2024-04-01', '2024-03-31', 0]);

  assert.deepEqual(await punitory(h, d.credit.id), [
    [50, '2024-02-29'],
    [155, '2024-03-31'],
  ]);
  assert.deepEqual(await punitory(h, future.credit.id), []);
  // the entries are the daily run's: created_by names it
  const entries = json(await h.get(`/api/credits/${d.credit.id}/ledger`)).filter((e: any) => e.type === 'punitory');
  assert.ok(
    entries.every((e: any) => e.created_by === 'cli'),
    "every e of entries: e.created_by === 'cli'",
  );
  // on April 3rd it owes 1000 + 44 days × 5: paying it (an event: punitory up to its date first) closes the credit
  clock.set('2024-04-03');
  assert.equal((await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 1220.01 })).statusCode, 422);
  const paid = await pay(h, d.credit.id, { amount: 1220 });
  assert.deepEqual(
    paid.ledgerEntries.map((e: any) => [e.type, e.amount, e.effective_date]),
    [
      ['punitory', 15, '2024-04-03'],
      ['payment', 1220, '2024-04-03'],
    ],
  );
  assert.equal(paid.credit.status, 'closed');
  await assertLedgerInvariant(h.db, bid);
});

test('max_punitory_days and punitory_cap_pct bound the posting', async (t) => {
  const clock = settableClock('2024-08-01');
  const h = await build(t, { clock });
  const c = await client(h);
  const maxed = await credit(h, c.id, {
    credit_config_id: (await plan(h, { ...ONE, max_punitory_days: 7 })).id,
    amount: 1000,
    start_date: '2024-06-01', // due 2024-07-01
  });
  const capped = await credit(h, c.id, {
    credit_config_id: (await plan(h, { ...ONE, punitory_cap_pct: 50 })).id,
    amount: 1000,
    start_date: '2023-12-14', // due 2024-01-13: 200 days late on 2024-07-31
  });
  const free = await credit(h, c.id, {
    credit_config_id: (await plan(h, ONE)).id,
    amount: 1000,
    start_date: '2023-12-14',
  });
  await accrue(h, '--business', h.tenant.businessId);
  assert.deepEqual(await punitory(h, maxed.credit.id), [[35, '2024-07-31']]); // 7 of 30 days × 5
  assert.deepEqual(await punitory(h, capped.credit.id), [[500, '2024-07-31']]); // 200 days × 5 = 1000, capped at 50 % of 1000
  assert.deepEqual(await punitory(h, free.credit.id), [[1000, '2024-07-31']]);
  // a month later the bounded ones have nothing more to post; the free one posts August
  clock.set('2024-09-02');
  const r = (await accrue(h, '--business', h.tenant.businessId)).out.businesses[0];
  assert.deepEqual([r.credits_accrued, r.punitory_entries, r.punitory_total], [3, 1, 155]);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('automatic write-off: decided as of today only, an event that posts punitory up to its date; accrual stops; recoveries are accepted', async (t) => {
  const clock = settableClock('2024-05-20');
  const h = await build(t, { clock });
  const bid = h.tenant.businessId;
  const p = await plan(h, { ...ONE, write_off_days: 15 });
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-03-21' }); // due 2024-04-20
  const young = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-04-10' }); // due 2024-05-10

  // a run as of a past date closes the months ended by then and writes nothing off, even a credit
  // already past the rule that day
  const past = (await accrue(h, '--as-of', '2024-05-10', '--business', bid)).out.businesses[0];
  assert.deepEqual(
    [past.closed_through, past.punitory_entries, past.punitory_total, past.written_off],
    ['2024-04-30', 1, 50, 0],
  );
  assert.equal(json(await h.get(`/api/credits/${d.credit.id}`)).credit.status, 'active');

  // today: the first is 30 days late (≥ 15): its punitory up to today is posted, then it is written off
  const today = (await accrue(h, '--business', bid)).out.businesses[0];
  assert.deepEqual([today.written_off, today.punitory_entries, today.punitory_total], [1, 1, 100]);
  const cr = json(await h.get(`/api/credits/${d.credit.id}`)).credit;
  assert.equal(cr.status, 'written_off');
  assert.match(cr.write_off_reason, /15 days late/);
  assert.equal(cr.written_off_at, clock().toISOString());
  assert.deepEqual(await punitory(h, d.credit.id), [
    [50, '2024-04-30'],
    [100, '2024-05-20'],
  ]);
  // the young one (10 days late, < 15) stays active and is only read, not posted
  assert.equal(json(await h.get(`/api/credits/${young.credit.id}`)).credit.status, 'active');
  assert.deepEqual(await punitory(h, young.credit.id), []);
  assert.deepEqual(await shown(h, young.credit.id), [0, 50]);

  // the next month's close: the written-off one accrues no more; the young one, written off on
  // the 25th (15 days late), posted up to that day first
  clock.set('2024-05-25');
  assert.equal((await accrue(h, '--business', bid)).out.businesses[0].written_off, 1);
  clock.set('2024-06-01');
  const june = (await accrue(h, '--business', bid)).out.businesses[0];
  assert.deepEqual([june.credits_accrued, june.punitory_entries], [0, 0]);
  assert.deepEqual(await punitory(h, d.credit.id), [
    [50, '2024-04-30'],
    [100, '2024-05-20'],
  ]);
  assert.deepEqual(await punitory(h, young.credit.id), [[75, '2024-05-25']]);
  assert.deepEqual(await shown(h, d.credit.id), [150, 0]);

  // a recovery: accepted, the credit stays written off even once paid in full
  const r = await pay(h, d.credit.id, { amount: 1150 });
  assert.deepEqual(
    r.ledgerEntries.map((e: any) => [e.type, e.amount]),
    [['payment', 1150]],
  );
  assert.equal(r.credit.status, 'written_off');
  assert.equal(r.installments[0].status, 'paid');
  // it is no longer in anyone's way: manual write-off of it is a conflict
  assert.equal((await h.post(`/api/credits/${d.credit.id}/write-off`, { reason: 'x' })).statusCode, 409);
  await assertLedgerInvariant(h.db, bid);
});

test('each business is accrued as of its own today, and closes the months ended in its own time zone', async (t) => {
  // 23:00 UTC on March 31st: already April 1st at UTC+14
  const h = await build(t, { clock: settableClock(new Date('2024-03-31T23:00:00Z')) });
  const east = await h.newTenant({ timezone: 'Pacific/Kiritimati' }); // UTC+14
  const west = await h.newTenant({ timezone: 'Pacific/Pago_Pago' }); // UTC−11
  // (one business at a time: other test files share this database)
  for (const [id, asOf, closed] of [
    [east.businessId, '2024-04-01', '2024-03-31'],
    [west.businessId, '2024-03-31', '2024-02-29'],
    [h.tenant.businessId, '2024-03-31', '2024-02-29'],
  ] as const) {
    const run = await accrue(h, '--business', id);
    assert.equal(run.code, 0, run.err);
    assert.deepEqual([run.out.businesses[0].as_of, run.out.businesses[0].closed_through], [asOf, closed]);
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
  const clock = settableClock('2024-03-15');
  const ctx = actorContext({ businessId: tenant.businessId, timezone: 'UTC' }, 'cli', clock);
  const p = await insertCreditConfig(db.kysely, tenant.businessId, {
    name: 'p',
    installments_count: 1,
    days_until_first_payment: 30,
    daily_punitory_rate: '0.005',
  });
  const c = await insertClient(db.kysely, tenant.businessId, { dni: '1' });
  const d = await createCredit(db, ctx, {
    clientId: c.id,
    creditConfigId: p.id,
    amount: 1000,
    startDate: '2024-01-20', // due 2024-02-19
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

  const off = startAccrualSchedule(db, loadConfig({ ACCRUAL_SCHEDULE: 'off', DATA_DIR: '/tmp' }), silent, clock);
  off();
  assert.deepEqual(await posted(), []);
  const stop = startAccrualSchedule(
    db,
    loadConfig({ ACCRUAL_SCHEDULE: '* * * * * *', DATA_DIR: '/tmp' }),
    silent,
    clock,
  ); // every second
  t.after(stop);
  // wait for the first tick to post (no assertion on how long it takes)
  for (let k = 0; k < 100 && (await posted()).length === 0; k++) await new Promise((r) => setTimeout(r, 100));
  stop();
  assert.deepEqual(
    (await posted()).map((e) => [e.amount, e.effective_date, e.created_by]),
    [['50.00', '2024-02-29', 'system:accrual']], // the month close: February 20..29
  );
  await assertLedgerInvariant(db, tenant.businessId);
});

test('accruing writes no credits UPDATE to the audit log and keeps updated_at, unless the status changes', async (t) => {
  const clock = settableClock('2024-06-03');
  const h = await build(t, { clock });
  const bid = h.tenant.businessId;
  const p = await plan(h, ONE);
  const wo = await plan(h, { ...ONE, write_off_days: 15 });
  const c = await client(h);
  const late = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-04-10' }); // due 05-10
  const partly = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-04-05' }); // due 05-05
  const paidLater = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-04-20' }); // due 05-20
  const writtenOff = await credit(h, c.id, { credit_config_id: wo.id, amount: 1000, start_date: '2024-03-21' }); // due 04-20
  await pay(h, partly.credit.id, { amount: 300, paid_on: '2024-05-08' });
  const ids = [late, partly, paidLater, writtenOff].map((d) => d.credit.id);
  const read = async () => Promise.all(ids.map(async (id) => json(await h.get(`/api/credits/${id}`)).credit));
  const creditUpdates = async () => json(await h.get('/api/logs?table_name=credits&action=UPDATE&limit=100')).items;
  const before = await read();
  const updatesBefore = await creditUpdates();

  // a run as of a past date (April's close, no write-off), today's run (May's close and the
  // write-off), a payment that posts punitory up to today, a run that finds nothing
  const past = (await accrue(h, '--as-of', '2024-05-31', '--business', bid)).out.businesses[0];
  assert.deepEqual([past.credits_accrued, past.written_off], [1, 0]);
  const today = (await accrue(h, '--business', bid)).out.businesses[0];
  assert.deepEqual([today.credits_accrued, today.punitory_entries, today.written_off], [4, 5, 1]);
  const payment = await pay(h, paidLater.credit.id, { amount: 100 });
  assert.deepEqual(
    payment.ledgerEntries.map((e: any) => e.type),
    ['punitory', 'payment'],
  );
  const again = (await accrue(h, '--business', bid)).out.businesses[0];
  assert.deepEqual([again.credits_accrued, again.punitory_entries, again.written_off], [0, 0, 0]);

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
    assert.ok(posted.length > 0, 'holds: posted.length > 0');
    for (const e of posted)
      assert.ok(
        ledgerLog.some((x: any) => x.record_id === e.id && x.new_data.type === 'punitory'),
        `ledger entry ${e.id} audited`,
      );
  }
  await assertLedgerInvariant(h.db, bid);
});

test('an amount that cannot be stored fails neither the run nor a payment: punitory stops at the storable maximum, the credit is reported and counted', async (t) => {
  const clock = settableClock('2024-04-02');
  const h = await build(t, { clock });
  const bid = h.tenant.businessId;
  const c = await client(h);
  // 999,999 a day, compound: after 40 days a figure of 240 digits; numeric(14,2) holds 14
  const huge = await plan(h, { ...ONE, daily_punitory_rate: 999999, punitory_mode: 'compound' });
  const normal = await plan(h, ONE);
  const start = '2024-01-20'; // due 2024-02-19
  const a = await credit(h, c.id, { credit_config_id: huge.id, amount: 1000, start_date: start });
  const b = await credit(h, c.id, { credit_config_id: huge.id, amount: 1000, start_date: start });
  const n = await credit(h, c.id, { credit_config_id: normal.id, amount: 1000, start_date: start });
  const MAX = 999999999999.99;

  // a read shows it stopped there
  assert.deepEqual(await shown(h, a.credit.id), [0, MAX]);
  // a payment posts it (an event) and is allocated to it
  const r = await pay(h, b.credit.id, { amount: 500 });
  assert.deepEqual(
    r.ledgerEntries.map((e: any) => [e.type, e.amount, e.effective_date]),
    [
      ['punitory', MAX, '2024-04-02'],
      ['payment', 500, '2024-04-02'],
    ],
  );
  // the run: the others go on; the credit is counted and named on stderr
  const run = await accrue(h, '--business', bid);
  assert.equal(run.code, 0, run.err);
  const out = run.out.businesses[0];
  assert.deepEqual(
    [out.credits_accrued, out.punitory_entries, out.clamped, out.skipped],
    [2, 2, 1, 0], // a and n (b is posted through today already)
  );
  assert.match(run.err, new RegExp(`credit ${a.credit.id} .*storable maximum`));
  assert.deepEqual(await punitory(h, a.credit.id), [[MAX, '2024-03-31']]);
  assert.deepEqual(await punitory(h, n.credit.id), [[205, '2024-03-31']]); // February 20 .. March 31
  // the summary and the worklist read it too (the SQL twin stops at the same figure)
  assert.equal((await h.get('/api/reports/summary')).statusCode, 200);
  const items = json(await h.get(`/api/installments?credit_id=${a.credit.id}`)).items;
  assert.deepEqual([items[0].punitory_posted, items[0].punitory_accrued], [MAX, 0]);
  // next month it is counted again, and nothing more is posted on it
  clock.set('2024-05-01');
  const may = (await accrue(h, '--business', bid)).out.businesses[0];
  assert.deepEqual([may.clamped, may.punitory_entries], [2, 1]); // a and b; n posts April
  await assertLedgerInvariant(h.db, bid);
});

test('a credit that fails is skipped, reported and counted; the others are posted; the next run gets it', async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-02') });
  const bid = h.tenant.businessId;
  const p = await plan(h, ONE);
  const c = await client(h);
  const ids: string[] = [];
  for (let k = 0; k < 3; k++)
    ids.push((await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-20' })).credit.id);
  const bad = ids[1]!;
  // a fault injected in the database: any ledger entry of that one credit is refused
  const name = `test_refuse_${bad.replace(/-/g, '')}`;
  const run1 = (q: string) => sql.raw(q).execute(h.db.kysely);
  await run1(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`,
  );
  await run1(`CREATE TRIGGER ${name} BEFORE INSERT ON ledger FOR EACH ROW
                WHEN (NEW.credit_id = '${bad}'::uuid) EXECUTE FUNCTION ${name}()`);
  const drop = async () => {
    await run1(`DROP TRIGGER IF EXISTS ${name} ON ledger`);
    await run1(`DROP FUNCTION IF EXISTS ${name}()`);
  };
  t.after(drop);

  const run = await accrue(h, '--business', bid);
  assert.equal(run.code, 0, run.err);
  const out = run.out.businesses[0];
  assert.deepEqual([out.credits_accrued, out.punitory_entries, out.skipped, out.clamped], [2, 2, 1, 0]);
  assert.match(run.err, new RegExp(`credit ${bad} .*skipped, left for the next run: .*injected failure`));
  assert.deepEqual(await punitory(h, ids[0]!), [[205, '2024-03-31']]);
  assert.deepEqual(await punitory(h, bad), []);
  assert.deepEqual(await punitory(h, ids[2]!), [[205, '2024-03-31']]);

  await drop();
  const next = (await accrue(h, '--business', bid)).out.businesses[0];
  assert.deepEqual([next.credits_accrued, next.punitory_entries, next.skipped], [1, 1, 0]);
  assert.deepEqual(await punitory(h, bad), [[205, '2024-03-31']]);
  await assertLedgerInvariant(h.db, bid);
});
