// Migration 002 moves the accrual watermark out of the audited credits row: a database that
// was at 001 keeps every credit's date, and the move itself writes no audit entry. Migration 003
// gives the ledger one composite key to its installment and credit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { openEmbedded } from '../../src/db/connection.ts';
import { migrate, migrationFiles } from '../../src/db/migrate.ts';
import { build, json } from '../helpers/app.ts';
import { client, credit, day, plan } from './helpers.ts';

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
