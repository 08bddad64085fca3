// Settings, guarantors and credit applications (docs/applications.md) through HTTP: the
// maker-checker rules (self-approval, the employee limit, a failed check without a note), one
// disbursement even when two race, decisions racing, withdrawals after a decision, viewers, and
// the settings' validation and roles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { build, json, type Harness } from '../../../helpers/app.ts';
import { type Signed, userSession } from '../../../helpers/sessions.ts';
import { client, plan } from '../../../helpers/book.ts';

const as = (h: Harness, s: Signed) => ({
  get: (url: string) => h.req({ method: 'GET', url, headers: s.read, key: null }),
  post: (url: string, payload: unknown = {}) =>
    h.req({ method: 'POST', url, headers: s.write, payload: payload as object, key: null }),
  put: (url: string, payload: unknown) =>
    h.req({ method: 'PUT', url, headers: s.write, payload: payload as object, key: null }),
});

async function verified(h: Harness, clientId: string, source: string, summary: unknown, at = new Date()) {
  await sql`INSERT INTO verifications (business_id, client_id, source, cuit, status, summary, raw, created_by, created_at)
    VALUES (${h.tenant.businessId}, ${clientId}, ${source}, '20123456786', 'found', ${JSON.stringify(summary)}::jsonb, '{}'::jsonb, 'cli', ${at})`.execute(
    h.db.kysely,
  );
}

test('settings: defaults, admins write them whole and valid, others may only read', async (t) => {
  const h = await build(t, { timezone: 'America/Argentina/Buenos_Aires' });
  const defaults = json(await h.get('/api/settings'));
  assert.deepEqual(defaults, {
    approval: { required: false, employee_limit: null },
    reminders: { enabled: false, before_due_days: [3], overdue_days: [1, 7] },
    locale: 'es-AR',
    timezone: 'America/Argentina/Buenos_Aires',
  });
  const body = {
    approval: { required: true, employee_limit: 1000.5 },
    reminders: { enabled: true, before_due_days: [5, 1], overdue_days: [0, 3] },
    locale: 'en',
    timezone: 'UTC',
  };
  const employee = await userSession(h, h.tenant.businessId, 'employee');
  assert.equal((await as(h, employee).put('/api/settings', body)).statusCode, 403);
  assert.equal((await as(h, employee).get('/api/settings')).statusCode, 200);
  const admin = await userSession(h, h.tenant.businessId, 'admin');
  const saved = await as(h, admin).put('/api/settings', body);
  assert.equal(saved.statusCode, 200, saved.body);
  assert.deepEqual(json(saved), {
    ...body,
    reminders: { enabled: true, before_due_days: [1, 5], overdue_days: [0, 3] },
  });
  assert.deepEqual(json(await h.get('/api/settings')), json(saved));
  for (const bad of [
    { ...body, timezone: 'Mars/Olympus' },
    { ...body, locale: 'fr' },
    { ...body, reminders: { ...body.reminders, before_due_days: [-1] } },
    { ...body, reminders: { ...body.reminders, overdue_days: [1.5] } },
    { ...body, reminders: { ...body.reminders, overdue_days: [2, 2] } },
    { ...body, approval: { required: true, employee_limit: 1.234 } },
    { ...body, extra: 1 },
  ]) {
    const r = await as(h, admin).put('/api/settings', bad);
    assert.equal(r.statusCode, 400, `${JSON.stringify(bad)} ${r.body}`);
    assert.equal(json(r).code, 'validation_failed');
  }
  assert.deepEqual(json(await h.get('/api/settings')), json(saved));
});

test('guarantors: added and removed, never the borrower nor another business’s client; shown on both reads', async (t) => {
  const h = await build(t);
  const p = await plan(h, { interest_rate: 0.2, installments_count: 2 });
  const borrower = await client(h);
  const backer = await client(h);
  const made = json(await h.post(`/api/clients/${borrower.id}/credits`, { credit_config_id: p.id, amount: 1000 }));
  const url = `/api/credits/${made.credit.id}/guarantors`;
  const self = await h.post(url, { client_id: borrower.id, role: 'guarantor' });
  assert.equal(self.statusCode, 422, self.body);
  const other = await h.newTenant();
  const foreign = json(await h.post('/api/clients', { dni: '99887766', first_name: 'X' }, other.fullKey));
  assert.equal((await h.post(url, { client_id: foreign.id, role: 'guarantor' })).statusCode, 422);
  const added = await h.post(url, { client_id: backer.id, role: 'co_borrower' });
  assert.equal(added.statusCode, 201, added.body);
  const g = json(added);
  assert.deepEqual(Object.keys(g), ['id', 'credit_id', 'client_id', 'role', 'created_at']);
  assert.equal((await h.post(url, { client_id: backer.id, role: 'guarantor' })).statusCode, 409);
  const read = json(await h.get(`/api/credits/${made.credit.id}`));
  assert.deepEqual(read.guarantors, [g]);
  const backerRead = json(await h.get(`/api/clients/${backer.id}`));
  assert.deepEqual(backerRead.credits, []);
  // 1000 × 1.2 = 1200 owed, nothing paid
  assert.deepEqual(backerRead.guarantees, [
    {
      id: g.id,
      credit_id: made.credit.id,
      borrower_id: borrower.id,
      role: 'co_borrower',
      status: 'active',
      outstanding: 1200,
      created_at: g.created_at,
    },
  ]);
  assert.equal(read.balance.outstanding, 1200);
  assert.deepEqual(json(await h.get(`/api/clients/${borrower.id}`)).guarantees, []);
  const viewer = await userSession(h, h.tenant.businessId, 'viewer');
  assert.equal((await as(h, viewer).post(url, { client_id: backer.id, role: 'guarantor' })).statusCode, 403);
  const removed = await h.del(`${url}/${g.id}`);
  assert.equal(removed.statusCode, 200, removed.body);
  assert.deepEqual(json(removed), g);
  assert.equal((await h.del(`${url}/${g.id}`)).statusCode, 404);
  assert.deepEqual(json(await h.get(`/api/clients/${backer.id}`)).guarantees, []);
});

test('applications: checks from fresh verifications, maker-checker, limits, notes, one disbursement', async (t) => {
  const h = await build(t);
  const admin = await userSession(h, h.tenant.businessId, 'admin');
  const maker = await userSession(h, h.tenant.businessId, 'employee');
  const checker = await userSession(h, h.tenant.businessId, 'employee');
  const viewer = await userSession(h, h.tenant.businessId, 'viewer');
  assert.equal(
    (
      await as(h, admin).put('/api/settings', {
        approval: { required: true, employee_limit: 5000 },
        reminders: { enabled: false, before_due_days: [3], overdue_days: [1, 7] },
        locale: 'es-AR',
        timezone: 'UTC',
      })
    ).statusCode,
    200,
  );
  const p = await plan(h, {
    interest_rate: 0.1,
    installments_count: 1,
    policy: { max_central_bank_situation: 2, max_total_debt: 100000, require_tax_active: true },
  });
  assert.deepEqual(p.policy, { max_central_bank_situation: 2, max_total_debt: 100000, require_tax_active: true });
  const c = json(await h.post('/api/clients', { dni: '30111222', first_name: 'Ana', cuit: '20123456786' }));
  const backer = await client(h);
  // a fresh central bank verification in situation 3; an old tax one (stale: unknown)
  await verified(h, c.id, 'central_bank', { worst_situation: 3, total_debt: 50000 });
  await verified(h, c.id, 'tax_authority', { status: 'ACTIVO' }, new Date(Date.now() - 48 * 3_600_000));

  // with approval required an employee cannot grant directly; a full key can
  const direct = await as(h, maker).post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 100 });
  assert.equal(direct.statusCode, 409, direct.body);
  assert.equal(json(direct).code, 'approval_required');

  assert.equal(
    (await as(h, viewer).post(`/api/clients/${c.id}/applications`, { credit_config_id: p.id, amount: 1000 }))
      .statusCode,
    403,
  );
  const sub = await as(h, maker).post(`/api/clients/${c.id}/applications`, {
    credit_config_id: p.id,
    amount: 1000,
    guarantors: [{ client_id: backer.id, role: 'guarantor' }],
  });
  assert.equal(sub.statusCode, 201, sub.body);
  const a = json(sub);
  assert.equal(a.status, 'submitted');
  assert.deepEqual(
    a.checks.map((x: any) => [x.rule, x.outcome]),
    [
      ['max_central_bank_situation', 'fail'],
      ['max_total_debt', 'pass'],
      ['require_tax_active', 'unknown'],
    ],
  );
  assert.equal(a.submitted_by, `user:${maker.id}`);
  const bad = await as(h, maker).post(`/api/clients/${c.id}/applications`, {
    credit_config_id: p.id,
    amount: 10,
    guarantors: [{ client_id: c.id, role: 'guarantor' }],
  });
  assert.equal(bad.statusCode, 422, bad.body);

  const approve = (s: Signed, body: unknown = {}) => as(h, s).post(`/api/applications/${a.id}/approve`, body);
  // the submitter may not approve, even with a note
  assert.equal((await approve(maker, { note: 'mine' })).statusCode, 403);
  // over a failed check a note is needed
  const noNote = await approve(checker);
  assert.equal(noNote.statusCode, 422, noNote.body);
  assert.equal(json(noNote).details[0].path, '/note');
  assert.equal((await approve(viewer, { note: 'x' })).statusCode, 403);
  // not disbursed before it is approved
  assert.equal((await as(h, checker).post(`/api/applications/${a.id}/disburse`, { method: 'cash' })).statusCode, 409);
  // two approvers racing: one wins, the other finds it decided
  const raced = await Promise.all([approve(checker, { note: 'situation improving' }), approve(admin, { note: 'ok' })]);
  assert.deepEqual(raced.map((r) => r.statusCode).sort(), [200, 409]);
  const decided = json(await h.get(`/api/applications/${a.id}`));
  assert.equal(decided.status, 'approved');
  // withdraw and reject after the decision: 409
  assert.equal((await as(h, maker).post(`/api/applications/${a.id}/withdraw`)).statusCode, 409);
  assert.equal((await as(h, checker).post(`/api/applications/${a.id}/reject`, { reason: 'late' })).statusCode, 409);

  // two disbursements racing: one credit
  const ds = await Promise.all([
    as(h, checker).post(`/api/applications/${a.id}/disburse`, { method: 'transfer', external_reference: 'TRF-1' }),
    as(h, maker).post(`/api/applications/${a.id}/disburse`, { method: 'cash' }),
  ]);
  assert.deepEqual(ds.map((r) => r.statusCode).sort(), [201, 409]);
  const won = json(ds.find((r) => r.statusCode === 201)!);
  assert.equal(won.credit.application_id, a.id);
  assert.equal(won.credit.amount, 1000);
  assert.equal(won.credit.total, 1100);
  assert.deepEqual(
    won.guarantors.map((g: any) => [g.client_id, g.role]),
    [[backer.id, 'guarantor']],
  );
  const after = json(await h.get(`/api/applications/${a.id}`));
  assert.equal(after.status, 'disbursed');
  assert.equal(after.credit_id, won.credit.id);
  assert.equal((await as(h, admin).post(`/api/applications/${a.id}/disburse`, { method: 'cash' })).statusCode, 409);
  const credits = json(await h.get(`/api/clients/${c.id}/credits`));
  assert.equal(credits.length, 1);
  assert.equal(credits[0].application_id, a.id);

  // above the employee limit only an admin approves
  const big = json(
    await as(h, maker).post(`/api/clients/${c.id}/applications`, { credit_config_id: p.id, amount: 5000.01 }),
  );
  const over = await as(h, checker).post(`/api/applications/${big.id}/approve`, { note: 'x' });
  assert.equal(over.statusCode, 403, over.body);
  assert.match(json(over).error, /5000\.00/);
  const byAdmin = await as(h, admin).post(`/api/applications/${big.id}/approve`, { note: 'x' });
  assert.equal(byAdmin.statusCode, 200, byAdmin.body);
  assert.equal(json(byAdmin).decided_by, `user:${admin.id}`);

  // reject needs another person and a reason; withdraw only before a decision
  const r1 = json(await as(h, maker).post(`/api/clients/${c.id}/applications`, { credit_config_id: p.id, amount: 10 }));
  assert.equal((await as(h, maker).post(`/api/applications/${r1.id}/reject`, { reason: 'no' })).statusCode, 403);
  assert.equal((await as(h, checker).post(`/api/applications/${r1.id}/reject`, {})).statusCode, 400);
  const rejected = await as(h, checker).post(`/api/applications/${r1.id}/reject`, { reason: 'situation 3' });
  assert.equal(rejected.statusCode, 200, rejected.body);
  assert.equal(json(rejected).decision_note, 'situation 3');
  const w = json(await as(h, maker).post(`/api/clients/${c.id}/applications`, { credit_config_id: p.id, amount: 10 }));
  assert.equal((await as(h, checker).post(`/api/applications/${w.id}/withdraw`)).statusCode, 403);
  assert.equal((await as(h, maker).post(`/api/applications/${w.id}/withdraw`)).statusCode, 200);
  assert.equal((await as(h, checker).post(`/api/applications/${w.id}/approve`, { note: 'x' })).statusCode, 409);

  // the list, by status, with paging
  const list = json(await as(h, viewer).get('/api/applications?status=submitted'));
  assert.equal(list.total, 0);
  const all = json(await h.get('/api/applications?limit=2'));
  assert.equal(all.total, 4);
  assert.equal(all.items.length, 2);
  assert.equal(json(await h.get('/api/applications?status=rejected')).items[0].id, r1.id);

  // events and the audit trail
  // announced through the outbox; sequenced into the feed later
  const types = (
    await sql<{
      type: string;
    }>`SELECT type FROM event_outbox WHERE business_id = ${h.tenant.businessId} AND type LIKE 'application.%'
      UNION ALL SELECT type FROM events WHERE business_id = ${h.tenant.businessId} AND type LIKE 'application.%'`.execute(
      h.db.kysely,
    )
  ).rows.map((r) => r.type);
  assert.equal(types.filter((x) => x === 'application.submitted').length, 4);
  assert.equal(types.filter((x) => x === 'application.decided').length, 3);
  const audit = json(await h.get(`/api/logs?table_name=applications&limit=100`));
  assert.ok(
    audit.items.some(
      (e: any) => e.record_id === a.id && e.new_data?.status === 'disbursed' && e.actor.startsWith('user:'),
    ),
    'the audit log has the disbursement, made by a user',
  );
});

test('with approval required an employee cannot refinance either (409 approval_required, nothing changed); an admin and a full key can', async (t) => {
  const h = await build(t, { timezone: 'UTC' });
  const admin = await userSession(h, h.tenant.businessId, 'admin');
  const employee = await userSession(h, h.tenant.businessId, 'employee');
  const p = await plan(h, { interest_rate: 0.1, installments_count: 1 });
  const c = await client(h);
  const grant = async () =>
    json(await h.post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 1000 })).credit;
  const [a, b, k] = [await grant(), await grant(), await grant()];
  const settings = (required: boolean) =>
    as(h, admin).put('/api/settings', {
      approval: { required, employee_limit: null },
      reminders: { enabled: false, before_due_days: [3], overdue_days: [1, 7] },
      locale: 'es-AR',
      timezone: 'UTC',
    });

  // without approval the employee refinances
  assert.equal((await settings(false)).statusCode, 200);
  const free = await as(h, employee).post(`/api/credits/${a.id}/refinance`, { credit_config_id: p.id });
  assert.equal(free.statusCode, 201, free.body);

  // with approval: refused as a direct grant is, and the credit is left as it was
  assert.equal((await settings(true)).statusCode, 200);
  const refused = await as(h, employee).post(`/api/credits/${b.id}/refinance`, { credit_config_id: p.id });
  assert.equal(refused.statusCode, 409, refused.body);
  assert.equal(json(refused).code, 'approval_required');
  const granted = await as(h, employee).post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 5 });
  assert.equal(json(granted).code, json(refused).code, 'the same refusal as a direct grant');
  const after = json(await h.get(`/api/credits/${b.id}`));
  assert.equal(after.credit.status, 'active');
  const credits = json(await h.get(`/api/clients/${c.id}/credits`));
  assert.equal((credits.items ?? credits).length, 4, 'the three granted and the one refinance allowed');

  // an admin and a full key still may (the audit shows who)
  const byAdmin = await as(h, admin).post(`/api/credits/${b.id}/refinance`, { credit_config_id: p.id });
  assert.equal(byAdmin.statusCode, 201, byAdmin.body);
  const byKey = await h.post(`/api/credits/${k.id}/refinance`, { credit_config_id: p.id });
  assert.equal(byKey.statusCode, 201, byKey.body);
  assert.equal(json(byKey).credit.refinanced_from_id, k.id);
});
