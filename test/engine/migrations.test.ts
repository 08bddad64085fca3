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
import { assertLedgerInvariant, client, credit, day, legacyDailyRun, plan } from './helpers.ts';
import { createBusiness, getBusiness } from '../../src/db/repositories/businesses.ts';
import { insertClient } from '../../src/db/repositories/clients.ts';
import { insertCreditConfig } from '../../src/db/repositories/creditConfigs.ts';
import { summaryFigures } from '../../src/db/repositories/reports.ts';
import { addDays } from '../../src/domain/index.ts';
import { actorContext } from '../../src/services/context.ts';
import { createCredit, registerPayment } from '../../src/services/lending.ts';
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
  assert.ok(cols.includes('write_off_days') && !cols.includes('punitory_posted_through'));
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
    sql`INSERT INTO ledger (business_id, credit_id, installment_id, type, amount, effective_date, created_by)
        VALUES (${bid}::uuid, ${creditId}::uuid, ${installmentId}::uuid, 'punitory', 1, ${day(0)}::date, 'test')`.execute(
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
  // its own embedded database at 004, a book written by the code of then: credits and payments
  // through the services, punitory posted every day by the daily run of then (legacyDailyRun)
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
  const b = await createBusiness(k, { name: 'old book', timezone: 'UTC' });
  const clock = settableClock('2024-01-15');
  const ctx = actorContext({ businessId: b.id, timezone: 'UTC' }, 'cli', clock);
  const owner = await insertClient(k, b.id, { dni: '1' });
  const plans = await Promise.all(
    [
      { punitory_mode: 'simple_outstanding', grace_days: 3 },
      { punitory_mode: 'compound', max_punitory_days: 40 },
      { punitory_mode: 'full_amount', punitory_cap_pct: '15' },
    ].map((p, n) =>
      insertCreditConfig(k, b.id, {
        name: `p${n}`,
        installments_count: 3,
        days_until_first_payment: 20,
        interest_rate: '0.3',
        daily_punitory_rate: '0.004',
        ...p,
      } as never),
    ),
  );
  const ids: string[] = [];
  for (const [n, p] of plans.entries())
    ids.push(
      (
        await createCredit(k, ctx, {
          clientId: owner.id,
          creditConfigId: p.id,
          amount: 1000 + n,
          startDate: '2023-12-01',
        })
      ).credit.id,
    );
  const summaries = () =>
    Promise.all(
      ['2024-01-10', '2024-02-14', '2024-03-05'].map((asOf) =>
        summaryFigures(k, { businessId: b.id, asOf, branchId: null, timezone: 'UTC' }),
      ),
    );
  for (let day = '2024-01-15'; day <= '2024-03-05'; day = addDays(day, 1)) {
    clock.set(day);
    await legacyDailyRun(db, b.id, day);
    if (day === '2024-01-25') await registerPayment(k, actorContext(ctx, 'cli', clock), ids[0]!, { amount: 300 });
    if (day === '2024-02-20')
      // backdated: a correction at the last daily posting
      await registerPayment(k, actorContext(ctx, 'cli', clock), ids[1]!, { amount: 500, paidOn: '2024-02-12' });
  }
  const daily = await sql<{ n: string }>`SELECT count(*) AS n FROM ledger WHERE type = 'punitory'`.execute(k);
  assert.ok(Number(daily.rows[0]!.n) > 100, 'one entry a day per overdue installment');
  const before = await summaries();
  assert.notEqual(before[2]!.outstanding, before[0]!.outstanding);

  // 005 and the migrations after it
  assert.equal((await migrate(db))[0], '005_month_close.sql');
  assert.deepEqual(await summaries(), before);
  // the run of now on the next days: nothing before the month closes, then March's close only
  await assertLedgerInvariant(db, b.id);
  const business = (await getBusiness(k, b.id))!;
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
  assert.ok(april.punitory_entries > 0);
  const added = (
    await sql<{ id: string; installment_id: string; effective_date: string }>`
      SELECT id, installment_id, effective_date::text FROM ledger WHERE type = 'punitory'`.execute(k)
  ).rows.filter((e) => !known.has(e.id));
  assert.equal(added.length, april.punitory_entries);
  assert.ok(added.every((e) => e.effective_date === '2024-03-31'));
  assert.equal(new Set(added.map((e) => e.installment_id)).size, added.length, 'one entry per installment');
  assert.deepEqual(await summaries(), before);
  await assertLedgerInvariant(db, b.id);
});
