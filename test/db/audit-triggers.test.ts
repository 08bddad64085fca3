// The audit log as the database writes it (docs/domain.md "Audit"): each write through the API leaves
// exactly its rows, attributed to the key that made it; refused writes leave none; the log and
// the ledger are append-only at the database; a business sees only its own log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { build, json, type Harness } from '../helpers/app.ts';

type Entry = {
  id: string;
  table_name: string;
  action: string;
  record_id: string;
  old_data: Record<string, unknown> | null;
  new_data: Record<string, unknown> | null;
  business_id: string;
  branch_id: string | null;
  changed_at: string;
  impersonated_by: string | null;
  actor: string;
};

const total = async (h: Harness, key?: string) => json(await h.get('/api/logs?limit=1', key)).total as number;

/** Runs a write and returns the audit rows it added (newest first). */
async function rowsOf(h: Harness, write: () => ReturnType<Harness['get']>, expectStatus: number) {
  const before = await total(h);
  const res = await write();
  assert.equal(res.statusCode, expectStatus, res.body);
  const after = await total(h);
  const added = json(await h.get(`/api/logs?limit=100`)).items.slice(0, after - before) as Entry[];
  return { res: json(res), rows: added };
}

function assertEntry(
  e: Entry,
  h: Harness,
  want: { table: string; action: string; recordId: string; branchId: string | null },
) {
  assert.equal(e.table_name, want.table);
  assert.equal(e.action, want.action);
  assert.equal(e.record_id, want.recordId);
  assert.equal(e.business_id, h.tenant.businessId);
  assert.equal(e.actor, `api_key:${h.tenant.fullKeyId}`);
  assert.equal(e.branch_id, want.branchId);
  assert.equal(e.impersonated_by, null);
  assert.ok(!Number.isNaN(Date.parse(e.changed_at)), 'holds: !Number.isNaN(Date.parse(e.changed_at))');
  if (want.action === 'INSERT') assert.equal(e.old_data, null);
  else assert.ok(e.old_data && typeof e.old_data === 'object', "holds: e.old_data && typeof e.old_data === 'object'");
  assert.ok(e.new_data && typeof e.new_data === 'object', "holds: e.new_data && typeof e.new_data === 'object'");
}

test('client create and edit leave exactly their audit rows', async (t) => {
  const h = await build(t);
  const { res: client, rows } = await rowsOf(
    h,
    () => h.post('/api/clients', { dni: '20111222', first_name: 'Ana', city: 'Salta' }),
    201,
  );
  assert.equal(rows.length, 1);
  assertEntry(rows[0]!, h, { table: 'clients', action: 'INSERT', recordId: client.id, branchId: null });
  assert.equal(rows[0]!.new_data!.dni, '20111222');
  assert.equal(rows[0]!.new_data!.first_name, 'Ana');
  assert.equal(rows[0]!.new_data!.id, client.id);

  const edit = await rowsOf(h, () => h.put(`/api/clients/${client.id}`, { city: 'Jujuy', phone: '123' }), 200);
  assert.equal(edit.rows.length, 1);
  const e = edit.rows[0]!;
  assertEntry(e, h, { table: 'clients', action: 'UPDATE', recordId: client.id, branchId: null });
  assert.equal(e.old_data!.city, 'Salta');
  assert.equal(e.new_data!.city, 'Jujuy');
  assert.equal(e.old_data!.phone, null);
  assert.equal(e.new_data!.phone, '123');
  assert.equal(e.new_data!.first_name, 'Ana');

  // the record_id filter finds both, newest first
  const mine = json(await h.get(`/api/logs?record_id=${client.id}`));
  assert.equal(mine.total, 2);
  assert.deepEqual(
    mine.items.map((x: Entry) => x.action),
    ['UPDATE', 'INSERT'],
  );

  // an edit that changes nothing writes nothing
  const noop = await rowsOf(h, () => h.put(`/api/clients/${client.id}`, {}), 200);
  assert.equal(noop.rows.length, 0);
});

test('plan create and edit leave exactly their audit rows', async (t) => {
  const h = await build(t);
  const { res: plan, rows } = await rowsOf(
    h,
    () => h.post('/api/credit-configs', { name: 'Plan A', interest_rate: 0.35 }),
    201,
  );
  assert.equal(rows.length, 1);
  assertEntry(rows[0]!, h, { table: 'credit_configs', action: 'INSERT', recordId: plan.id, branchId: null });
  assert.equal(rows[0]!.new_data!.name, 'Plan A');
  assert.equal(Number(rows[0]!.new_data!.interest_rate), 0.35);

  const edit = await rowsOf(h, () => h.put(`/api/credit-configs/${plan.id}`, { is_active: false }), 200);
  assert.equal(edit.rows.length, 1);
  assertEntry(edit.rows[0]!, h, { table: 'credit_configs', action: 'UPDATE', recordId: plan.id, branchId: null });
  assert.equal(edit.rows[0]!.old_data!.is_active, true);
  assert.equal(edit.rows[0]!.new_data!.is_active, false);

  const noop = await rowsOf(h, () => h.put(`/api/credit-configs/${plan.id}`, {}), 200);
  assert.equal(noop.rows.length, 0);
});

test('branch create, edit and delete leave exactly their audit rows, with the branch as branch_id', async (t) => {
  const h = await build(t);
  const { res: branch, rows } = await rowsOf(
    h,
    () => h.post('/api/branches', { name: 'Centro', address: 'Calle 1' }),
    201,
  );
  assert.equal(rows.length, 1);
  assertEntry(rows[0]!, h, { table: 'branches', action: 'INSERT', recordId: branch.id, branchId: branch.id });
  assert.equal(rows[0]!.new_data!.name, 'Centro');

  const edit = await rowsOf(h, () => h.put(`/api/branches/${branch.id}`, { phone: '555' }), 200);
  assert.equal(edit.rows.length, 1);
  assertEntry(edit.rows[0]!, h, { table: 'branches', action: 'UPDATE', recordId: branch.id, branchId: branch.id });
  assert.equal(edit.rows[0]!.new_data!.phone, '555');

  // a soft delete is an UPDATE that sets deleted_at
  const del = await rowsOf(h, () => h.del(`/api/branches/${branch.id}`), 200);
  assert.equal(del.rows.length, 1);
  assertEntry(del.rows[0]!, h, { table: 'branches', action: 'UPDATE', recordId: branch.id, branchId: branch.id });
  assert.equal(del.rows[0]!.old_data!.deleted_at, null);
  assert.ok(del.rows[0]!.new_data!.deleted_at, 'del.rows[0].new_data.deleted_at is set');

  // deleting again changes nothing and logs nothing
  const again = await rowsOf(h, () => h.del(`/api/branches/${branch.id}`), 200);
  assert.equal(again.rows.length, 0);
});

test('refused writes (4xx) leave no audit row', async (t) => {
  const h = await build(t);
  const client = json(await h.post('/api/clients', { dni: '1' }));
  const plan = json(await h.post('/api/credit-configs', { name: 'P' }));
  const branch = json(await h.post('/api/branches', { name: 'B' }));
  const other = await h.newTenant();
  const otherClient = json(await h.post('/api/clients', { dni: 'other' }, other.fullKey));
  const before = await total(h);
  const otherBefore = await total(h, other.fullKey);

  const refused: [string, () => ReturnType<Harness['get']>, number][] = [
    ['duplicate dni', () => h.post('/api/clients', { dni: '1' }), 409],
    ['client without dni', () => h.post('/api/clients', { first_name: 'x' }), 400],
    ['client unknown field', () => h.put(`/api/clients/${client.id}`, { nope: 1 }), 400],
    [
      'client edit to a taken dni',
      async () => {
        await h.post('/api/clients', { dni: '2' });
        return h.put(`/api/clients/${client.id}`, { dni: '2' });
      },
      409,
    ],
    ['plan out of range', () => h.post('/api/credit-configs', { name: 'x', installments_count: 13 }), 400],
    ['plan edit with a fraction', () => h.put(`/api/credit-configs/${plan.id}`, { grace_days: 1.5 }), 400],
    ['branch without name', () => h.post('/api/branches', { address: 'x' }), 400],
    ['branch edit, wrong type', () => h.put(`/api/branches/${branch.id}`, { name: 5 }), 400],
    ['read key writes', () => h.post('/api/clients', { dni: '3' }, h.tenant.readKey), 403],
    ["another business's client", () => h.put(`/api/clients/${otherClient.id}`, { city: 'x' }), 404],
    ['unknown branch delete', () => h.del(`/api/branches/${randomUUID()}`), 404],
    [
      'malformed JSON',
      () =>
        h.req({
          method: 'POST',
          url: '/api/branches',
          payload: '{"name":',
          headers: { 'content-type': 'application/json' },
        }),
      400,
    ],
  ];
  for (const [what, call, status] of refused) {
    const res = await call();
    assert.equal(res.statusCode, status, `${what}: ${res.body}`);
  }
  // only the one successful helper write (dni 2) was logged
  assert.equal(await total(h), before + 1);
  assert.equal(await total(h, other.fullKey), otherBefore);
  assert.equal(json(await h.get(`/api/clients/${otherClient.id}`, other.fullKey)).client.city, null);
});

test('the audit log and the ledger refuse UPDATE, DELETE and TRUNCATE at the database', async (t) => {
  const h = await build(t);
  const db = h.db.kysely;
  const client = json(await h.post('/api/clients', { dni: '77' }));
  const plan = json(await h.post('/api/credit-configs', { name: 'P', installments_count: 2 }));
  const credit = await h.post(`/api/clients/${client.id}/credits`, { credit_config_id: plan.id, amount: 100 });
  const bid = h.tenant.businessId;
  const auditId = json(await h.get('/api/logs?limit=1')).items[0].id as string;

  const refused = async (what: string, q: ReturnType<typeof sql>) => {
    await assert.rejects(q.execute(db), (err: Error) => /append-only/.test(err.message), what);
  };
  await refused(
    'audit update',
    sql`UPDATE audit_log SET actor = 'forged' WHERE business_id = ${bid} AND id = ${auditId}`,
  );
  await refused('audit delete', sql`DELETE FROM audit_log WHERE business_id = ${bid} AND id = ${auditId}`);
  await refused('audit truncate', sql`TRUNCATE audit_log`);
  const row = await db
    .selectFrom('audit_log')
    .select(['actor'])
    .where('business_id', '=', bid)
    .where('id', '=', auditId)
    .executeTakeFirstOrThrow();
  assert.equal(row.actor, `api_key:${h.tenant.fullKeyId}`);

  // a ledger row: from a credit when the credits route is there, else written here directly
  let ledgerId: string;
  if (credit.statusCode === 201) {
    const l = await db.selectFrom('ledger').select('id').where('business_id', '=', bid).executeTakeFirstOrThrow();
    ledgerId = l.id;
  } else {
    ledgerId = await insertLedgerRow(h, client.id, plan.id);
  }
  await refused('ledger update', sql`UPDATE ledger SET amount = 1 WHERE business_id = ${bid} AND id = ${ledgerId}`);
  await refused('ledger delete', sql`DELETE FROM ledger WHERE business_id = ${bid} AND id = ${ledgerId}`);
  // a plain TRUNCATE stops at the foreign key of waivers (a waiver's row names its ledger entry);
  // with CASCADE it reaches the ledger's own guard
  await assert.rejects(sql`TRUNCATE ledger`.execute(db), 'ledger truncate');
  await refused('ledger truncate cascade', sql`TRUNCATE ledger CASCADE`);
  // a waiver's row (its reason, who) is part of its ledger entry: the same guard on every row
  await refused('waivers truncate', sql`TRUNCATE waivers`);
  const guards = await sql<{ tgname: string }>`
    SELECT t.tgname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
     WHERE t.tgrelid = 'waivers'::regclass AND p.proname = 'refuse_change' ORDER BY t.tgname`.execute(db);
  assert.deepEqual(
    guards.rows.map((r) => r.tgname),
    ['append_only', 'append_only_truncate'],
  );
  assert.ok(
    await db
      .selectFrom('ledger')
      .select('id')
      .where('business_id', '=', bid)
      .where('id', '=', ledgerId)
      .executeTakeFirst(),
    'the ledger entry is still there',
  );
});

async function insertLedgerRow(h: Harness, clientId: string, planId: string): Promise<string> {
  const bid = h.tenant.businessId;
  return h.db.kysely.transaction().execute(async (trx) => {
    const c = await trx
      .insertInto('credits')
      .values({
        business_id: bid,
        client_id: clientId,
        credit_config_id: planId,
        amount: '100',
        total: '100',
        created_by: 'test',
        sequential_id: 1,
        start_date: '2025-01-01',
        installments_count: 1,
        days_until_first_payment: 30,
        cut_type: 'fixed',
        payment_day: 10,
        interest_rate: '0',
        daily_punitory_rate: '0',
        grace_days: 0,
        punitory_mode: 'simple_outstanding',
        max_punitory_days: 0,
        punitory_cap_pct: '0',
        write_off_days: 0,
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    const i = await trx
      .insertInto('installments')
      .values({
        business_id: bid,
        credit_id: c.id,
        number: 1,
        amount: '100',
        principal: '100',
        interest: '0',
        vat: '0',
        due_date: '2025-01-31',
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    const l = await trx
      .insertInto('ledger')
      .values({
        business_id: bid,
        credit_id: c.id,
        installment_id: i.id,
        type: 'installment',
        origin: 'schedule',
        amount: '100',
        effective_date: '2025-01-01',
        created_by: 'test',
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    return l.id;
  });
}

test("a business never sees another's audit entries", async (t) => {
  const h = await build(t);
  const client = json(await h.post('/api/clients', { dni: 'a-1' }));
  const branch = json(await h.post('/api/branches', { name: 'A branch' }));
  const B = await h.newTenant();
  await h.post('/api/clients', { dni: 'b-1' }, B.fullKey);

  const page = json(await h.get('/api/logs?limit=100', B.readKey));
  assert.equal(page.total, 1);
  assert.ok(
    page.items.every((e: Entry) => e.business_id === B.businessId),
    'every e of page.items: e.business_id === B.businessId',
  );
  assert.ok(!JSON.stringify(page).includes(client.id), 'JSON.stringify(page) does not include client.id');
  assert.ok(
    !JSON.stringify(page).includes(h.tenant.businessId),
    'JSON.stringify(page) does not include h.tenant.businessId',
  );
  for (const q of [
    `record_id=${client.id}`,
    `record_id=${branch.id}`,
    'table_name=branches',
    'table=clients&action=INSERT',
  ]) {
    const r = json(await h.get(`/api/logs?${q}`, B.readKey));
    assert.ok(
      r.items.every((e: Entry) => e.business_id === B.businessId),
      q,
    );
    assert.ok(!JSON.stringify(r).includes(h.tenant.businessId), q);
  }
  assert.equal(json(await h.get(`/api/logs?record_id=${client.id}`, B.readKey)).total, 0);
});
