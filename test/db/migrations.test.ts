// Migration 002 moves the accrual watermark out of the audited credits row: a database that
// was at 001 keeps every credit's date, and the move itself writes no audit entry. Migration 003
// gives the ledger one composite key to its installment and credit. Migration 005 (month close)
// changes no figure of a book posted every day.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { openEmbedded } from '../../src/db/connection.ts';
import { migrate, migrationFiles } from '../../src/db/migrate.ts';
import { build, json, settableClock } from '../helpers/app.ts';
import { assertLedgerInvariant, client, credit, day, plan } from '../helpers/book.ts';
import { getBusiness } from '../../src/db/repositories/businesses.ts';
import { summaryFigures } from '../../src/db/repositories/reports.ts';
import { addDays, allocatePayment, money, round2 } from '../../src/domain/index.ts';
import {
  balanceOf,
  buildStates,
  creditTerms,
  cumulativeOf,
  punitoryPostings,
  statusOf,
} from '../../src/services/lending/engine/state.ts';
import { accrueBusiness } from '../../src/services/accrual.ts';

const dir = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));

test('002_credit_accruals copies punitory_posted_through, drops the column and audits nothing', async (t) => {
  // its own embedded database, left at 001 by hand
  const db = await openEmbedded(null);
  t.after(() => db.close());
  assert.equal(migrationFiles()[0], '001_schema.sql');
  await db.session(async (s) => {
    await s.exec(readFileSync(dir + '001_schema.sql', 'utf8'));
    await s.exec(`CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
                  INSERT INTO schema_migrations (name) VALUES ('001_schema.sql');`);
  });
  const k = db.kysely;
  const biz = (await sql<{ id: string }>`INSERT INTO businesses (name) VALUES ('b') RETURNING id`.execute(k)).rows[0]!
    .id;
  await sql`INSERT INTO clients (business_id, dni) VALUES (${biz}, '1')`.execute(k);
  await sql`INSERT INTO credit_configs (business_id, name) VALUES (${biz}, 'p')`.execute(k);
  for (const [seq, through] of [
    [1, '2024-03-01'],
    [2, null],
    [3, '2024-05-31'],
  ] as const) {
    await sql`
      INSERT INTO credits (business_id, client_id, credit_config_id, amount, total, created_by, sequential_id, start_date,
                           installments_count, days_until_first_payment, cut_type, payment_day, interest_rate, daily_punitory_rate,
                           grace_days, punitory_mode, max_punitory_days, punitory_cap_pct, write_off_days, punitory_posted_through)
      SELECT ${biz}, (SELECT id FROM clients), (SELECT id FROM credit_configs), 100, 100, 'test', ${seq}, '2024-01-01',
             1, 30, 'fixed', 10, 0, 0.01, 0, 'simple_outstanding', 0, 0, 0, ${through}::date`.execute(k);
  }
  const credits = (
    await sql<{
      id: string;
      sequential_id: number;
      updated_at: Date;
    }>`SELECT id, sequential_id, updated_at FROM credits ORDER BY sequential_id`.execute(k)
  ).rows;
  const audited = async () =>
    Number((await sql<{ n: string }>`SELECT count(*) AS n FROM audit_log`.execute(k)).rows[0]!.n);
  const auditBefore = await audited();

  assert.deepEqual(await migrate(db), migrationFiles().slice(1));

  const rows = (
    await sql<{
      credit_id: string;
      posted_through: string;
    }>`SELECT credit_id, posted_through::text FROM credit_accruals ORDER BY posted_through`.execute(k)
  ).rows;
  assert.deepEqual(rows, [
    { credit_id: credits[0]!.id, posted_through: '2024-03-01' },
    { credit_id: credits[2]!.id, posted_through: '2024-05-31' },
  ]);
  const cols = (
    await sql<{
      column_name: string;
    }>`SELECT column_name FROM information_schema.columns WHERE table_name = 'credits'`.execute(k)
  ).rows.map((r) => r.column_name);
  assert.ok(
    cols.includes('write_off_days') && !cols.includes('punitory_posted_through'),
    "holds: cols.includes('write_off_days') && !cols.includes('punitory_posted_through')",
  );
  assert.equal(await audited(), auditBefore, 'the move writes no audit entry');
  const after = (await sql<{ updated_at: Date }>`SELECT updated_at FROM credits ORDER BY sequential_id`.execute(k))
    .rows;
  assert.deepEqual(
    after.map((r) => r.updated_at.getTime()),
    credits.map((c) => c.updated_at.getTime()),
  );
  // tenant-scoped: a watermark for a credit of another business (or none) is refused
  await assert.rejects(
    sql`INSERT INTO credit_accruals (business_id, credit_id, posted_through) VALUES (gen_random_uuid(), ${credits[1]!.id}, '2024-01-01')`.execute(
      k,
    ),
    /foreign key/,
  );
});

test('the ledger refuses an entry whose credit, installment or business do not go together', async (t) => {
  const h = await build(t);
  const other = await h.newTenant();
  const p = await plan(h, { installments_count: 2 });
  const c = await client(h);
  const a = await credit(h, c.id, { credit_config_id: p.id, amount: 100, start_date: day(-1) });
  const b = await credit(h, c.id, { credit_config_id: p.id, amount: 100, start_date: day(-1) });
  const k = h.db.kysely;
  const insert = (bid: string, creditId: string, installmentId: string) =>
    sql`INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, effective_date, created_by)
        VALUES (${bid}::uuid, ${creditId}::uuid, ${installmentId}::uuid, 'punitory', 'accrual', 1, ${day(0)}::date, 'test')`.execute(
      k,
    );
  const bid = h.tenant.businessId;
  const count = async () => json(await h.get(`/api/credits/${a.credit.id}/ledger`)).length;
  const before = await count();
  await assert.rejects(insert(bid, a.credit.id, b.installments[0].id), /foreign key/, "another credit's installment");
  await assert.rejects(insert(other.businessId, a.credit.id, a.installments[0].id), /foreign key/, 'another business');
  await assert.rejects(
    insert('00000000-0000-4000-8000-000000000000', a.credit.id, a.installments[0].id),
    /foreign key/,
    'no business',
  );
  await assert.rejects(
    insert(bid, '00000000-0000-4000-8000-000000000000', a.installments[0].id),
    /foreign key/,
    'no credit',
  );
  await assert.rejects(
    insert(bid, a.credit.id, '00000000-0000-4000-8000-000000000000'),
    /foreign key/,
    'no installment',
  );
  assert.equal(await count(), before);
  await insert(bid, a.credit.id, a.installments[0].id); // the right triple is accepted
  assert.equal(await count(), before + 1);
});

test('005_month_close changes no figure of a book whose punitory was posted every day', async (t) => {
  // its own embedded database at 004, with a book as the code of then wrote it: plain SQL on the
  // 004 schema (the services of today write columns that schema lacks), the amounts computed by
  // the pure rules (allocation, cumulative punitory), punitory posted every day as the daily run
  // of then did, two payments (one backdated: a negative correction at the last daily posting)
  const db = await openEmbedded(null);
  t.after(() => db.close());
  const files = migrationFiles();
  assert.equal(files[4], '005_month_close.sql');
  await db.session(async (s) => {
    await s.exec(
      `CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const f of files.slice(0, 4)) {
      await s.exec(readFileSync(dir + f, 'utf8'));
      await s.query('INSERT INTO schema_migrations (name) VALUES ($1)', [f]);
    }
  });
  const k = db.kysely;
  const bid = (await sql<{ id: string }>`INSERT INTO businesses (name) VALUES ('old book') RETURNING id`.execute(k))
    .rows[0]!.id;
  const owner = (
    await sql<{ id: string }>`INSERT INTO clients (business_id, dni) VALUES (${bid}, '1') RETURNING id`.execute(k)
  ).rows[0]!.id;
  const terms = [
    { punitory_mode: 'simple_outstanding', grace_days: 3, max_punitory_days: 0, punitory_cap_pct: '0' },
    { punitory_mode: 'compound', grace_days: 0, max_punitory_days: 40, punitory_cap_pct: '0' },
    { punitory_mode: 'full_amount', grace_days: 0, max_punitory_days: 0, punitory_cap_pct: '15' },
  ];
  const ids: string[] = [];
  for (const [n, p] of terms.entries()) {
    // 3 installments at 30 % flat, due 20 days after 2023-12-01 and then monthly
    const amount = money(1000 + n);
    const total = round2(amount.times('1.3'));
    const each = round2(total.div(3));
    const plan = (
      await sql<{ id: string }>`
        INSERT INTO credit_configs (business_id, name, installments_count, days_until_first_payment, interest_rate,
                                    daily_punitory_rate, punitory_mode, grace_days, max_punitory_days, punitory_cap_pct)
        VALUES (${bid}, ${`p${n}`}, 3, 20, 0.3, 0.004, ${p.punitory_mode}, ${p.grace_days}, ${p.max_punitory_days},
                ${p.punitory_cap_pct}) RETURNING id`.execute(k)
    ).rows[0]!.id;
    const id = (
      await sql<{ id: string }>`
        INSERT INTO credits (business_id, client_id, credit_config_id, amount, total, created_by, sequential_id, start_date,
                             installments_count, days_until_first_payment, cut_type, payment_day, interest_rate,
                             daily_punitory_rate, grace_days, punitory_mode, max_punitory_days, punitory_cap_pct, write_off_days)
        SELECT business_id, ${owner}, id, ${amount.toFixed(2)}, ${total.toFixed(2)}, 'cli', ${n + 1}, '2023-12-01',
               installments_count, days_until_first_payment, cut_type, payment_day, interest_rate, daily_punitory_rate,
               grace_days, punitory_mode, max_punitory_days, punitory_cap_pct, write_off_days
          FROM credit_configs WHERE business_id = ${bid} AND id = ${plan}
        RETURNING id`.execute(k)
    ).rows[0]!.id;
    for (const [number, due] of ['2023-12-21', '2024-01-21', '2024-02-21'].entries()) {
      const amt = number < 2 ? each : total.minus(each.times(2));
      await sql`
        WITH i AS (
          INSERT INTO installments (business_id, credit_id, number, amount, due_date)
          VALUES (${bid}, ${id}, ${number + 1}, ${amt.toFixed(2)}, ${due}) RETURNING business_id, credit_id, id, amount)
        INSERT INTO ledger (business_id, credit_id, installment_id, type, amount, effective_date, created_by)
        SELECT business_id, credit_id, id, 'installment', amount, '2023-12-01', 'cli' FROM i`.execute(k);
    }
    ids.push(id);
  }

  /** a credit's installment states from its rows as the 004 schema holds them */
  const load = async (creditId: string) => {
    const credit = (await sql<any>`SELECT * FROM credits WHERE id = ${creditId}`.execute(k)).rows[0]!;
    const insts = (
      await sql<any>`SELECT id, number, amount::text, due_date::text, status, paid_date::text
                       FROM installments WHERE credit_id = ${creditId} ORDER BY number`.execute(k)
    ).rows;
    const ledger = (
      await sql<any>`SELECT installment_id, type, amount::text, punitory_part::text, effective_date::text, created_at
                       FROM ledger WHERE credit_id = ${creditId}`.execute(k)
    ).rows;
    return { terms: creditTerms(credit), insts, states: buildStates(insts, ledger) };
  };
  /** punitory posted so the cumulative figure as of `asOf` is reached, statuses after, the watermark moved */
  const post = async (creditId: string, asOf: string, effective: string) => {
    const { terms: tm, insts, states } = await load(creditId);
    for (const p of punitoryPostings(states, tm, asOf, null).postings) {
      await sql`INSERT INTO ledger (business_id, credit_id, installment_id, type, amount, effective_date, created_by)
                VALUES (${bid}, ${creditId}, ${p.state.id}, 'punitory', ${p.amount.toFixed(2)}, ${effective}, 'cli')`.execute(
        k,
      );
      p.state.punitoryPosted = p.state.punitoryPosted.plus(p.amount);
    }
    for (const s of states) {
      const next = statusOf(s);
      const row = insts.find((i: any) => i.id === s.id);
      if (next.status !== row.status || next.paidDate !== row.paid_date)
        await sql`UPDATE installments SET status = ${next.status}, paid_date = ${next.paidDate}::date
                   WHERE id = ${s.id}`.execute(k);
    }
    await sql`INSERT INTO credit_accruals (business_id, credit_id, posted_through) VALUES (${bid}, ${creditId}, ${effective})
              ON CONFLICT (business_id, credit_id) DO UPDATE SET posted_through = excluded.posted_through`.execute(k);
  };
  /** the daily run of then: every credit with an unpaid installment due before the day, posted up to it */
  const dailyRun = async (day: string) => {
    for (const id of ids) {
      const { insts } = await load(id);
      if (insts.some((i: any) => i.status !== 'paid' && i.due_date < day)) await post(id, day, day);
    }
  };
  /** a payment as the code of then took it, on a credit posted through `today`: allocated against what
   *  was owed on its date, then the punitory up to `today` computed again and the difference posted */
  const pay = async (creditId: string, amount: string, paidOn: string, today: string) => {
    const { terms: tm, states } = await load(creditId);
    const { slices, unallocated } = allocatePayment(
      money(amount),
      states.map((s) => balanceOf(s, cumulativeOf(s, tm, paidOn, null).minus(s.punitoryPaid))),
    );
    assert.ok(unallocated.isZero(), 'holds: unallocated.isZero()');
    const paymentId = crypto.randomUUID();
    for (const sl of slices)
      await sql`INSERT INTO ledger (business_id, credit_id, installment_id, type, amount, punitory_part, effective_date,
                                    payment_id, created_by)
                VALUES (${bid}, ${creditId}, ${sl.installmentId}, 'payment', ${sl.amount.toFixed(2)},
                        ${sl.punitory.toFixed(2)}, ${paidOn}, ${paymentId}, 'cli')`.execute(k);
    await post(creditId, today, today);
  };
  for (let day = '2024-01-15'; day <= '2024-03-05'; day = addDays(day, 1)) {
    await dailyRun(day);
    if (day === '2024-01-25') await pay(ids[0]!, '300', day, day);
    if (day === '2024-02-20') await pay(ids[1]!, '900', '2024-02-12', day); // backdated, reaching #2
  }
  const daily = await sql<{ n: string }>`SELECT count(*) AS n FROM ledger WHERE type = 'punitory'`.execute(k);
  assert.ok(Number(daily.rows[0]!.n) > 100, 'one entry a day per overdue installment');
  const negative = await sql<{ n: string }>`SELECT count(*) AS n FROM ledger WHERE amount < 0`.execute(k);
  assert.equal(Number(negative.rows[0]!.n) > 0, true, 'the backdated payment corrected punitory posted after its date');

  // What the book says of itself on days it was posted through (and, for 2024-02-10, before the
  // backdated payment's date): the ledger's sums. Every figure read after the migrations is that.
  const dates = ['2024-01-20', '2024-02-10', '2024-03-05'];
  const fromLedger = (asOf: string) =>
    sql<{ outstanding: string; overdue: string; par1: string }>`
      WITH inst AS (
        SELECT i.credit_id, i.due_date,
               sum(CASE WHEN l.type = 'payment' THEN -l.amount ELSE l.amount END) AS owed
          FROM installments i JOIN ledger l ON l.installment_id = i.id AND l.effective_date <= ${asOf}::date
         WHERE i.business_id = ${bid} GROUP BY i.credit_id, i.id, i.due_date),
      cr AS (
        SELECT sum(owed) AS outstanding,
               coalesce(sum(owed) FILTER (WHERE due_date < ${asOf}::date AND owed > 0), 0) AS overdue
          FROM inst GROUP BY credit_id)
      SELECT sum(outstanding)::text AS outstanding, sum(overdue)::text AS overdue,
             coalesce(sum(outstanding) FILTER (WHERE overdue > 0), 0)::text AS par1
        FROM cr`
      .execute(k)
      .then((r) => r.rows[0]!);
  const before = [];
  for (const d of dates) before.push(await fromLedger(d));
  assert.notEqual(before[2]!.outstanding, before[0]!.outstanding);
  const summaries = () =>
    Promise.all(dates.map((asOf) => summaryFigures(k, { businessId: bid, asOf, branchId: null, timezone: 'UTC' })));
  const figures = (rows: Awaited<ReturnType<typeof summaries>>) =>
    rows.map((r) => ({
      outstanding: money(r.outstanding).toFixed(2),
      overdue: money(r.overdue).toFixed(2),
      par1: money(r.par1).toFixed(2),
    }));

  // 005 and the migrations after it
  assert.equal((await migrate(db))[0], '005_month_close.sql');
  const after = await summaries();
  assert.deepEqual(
    figures(after),
    before.map((b) => ({
      outstanding: money(b.outstanding).toFixed(2),
      overdue: money(b.overdue).toFixed(2),
      par1: money(b.par1).toFixed(2),
    })),
  );
  assert.ok(
    after.every((r) => r.active === 3),
    'every r of after: r.active === 3',
  );
  // the run of now on the next days: nothing before the month closes, then March's close only
  await assertLedgerInvariant(db, bid);
  const business = (await getBusiness(k, bid))!;
  const clock = settableClock('2024-03-06');
  const punitoryIds = async () =>
    new Set(
      (await sql<{ id: string }>`SELECT id FROM ledger WHERE type = 'punitory'`.execute(k)).rows.map((r) => r.id),
    );
  const known = await punitoryIds();
  for (const day of ['2024-03-06', '2024-03-20', '2024-03-31']) {
    clock.set(day);
    const r = await accrueBusiness(db, business, { actor: 'cli', clock });
    assert.deepEqual([r.credits_accrued, r.punitory_entries], [0, 0], day);
  }
  clock.set('2024-04-01');
  const april = await accrueBusiness(db, business, { actor: 'cli', clock });
  assert.ok(april.punitory_entries > 0, 'holds: april.punitory_entries > 0');
  const added = (
    await sql<{ id: string; installment_id: string; effective_date: string }>`
      SELECT id, installment_id, effective_date::text FROM ledger WHERE type = 'punitory'`.execute(k)
  ).rows.filter((e) => !known.has(e.id));
  assert.equal(added.length, april.punitory_entries);
  assert.ok(
    added.every((e) => e.effective_date === '2024-03-31'),
    "every e of added: e.effective_date === '2024-03-31'",
  );
  assert.equal(new Set(added.map((e) => e.installment_id)).size, added.length, 'one entry per installment');
  assert.deepEqual(await summaries(), after);
  await assertLedgerInvariant(db, bid);
});
