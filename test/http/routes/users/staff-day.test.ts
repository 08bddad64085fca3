// A day of the staff, end to end: an admin signs in, invites an employee, the employee signs in and grants a
// credit after checking the client in the central bank registry, an operator impersonates the admin
// and revokes a key, and the audit log tells exactly who did what and on whose behalf; both
// databases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../../../helpers/app.ts';
import {
  Browser,
  PASSWORD,
  auditLog,
  cliOperator,
  cliUser,
  error,
  json,
  localServer,
  me,
  setPassword,
  signIn,
  status,
  validCuit,
} from '../../../helpers/acceptance.ts';

test('admin, employee, central bank check, credit, operator impersonation, key revoked: the audit log says who and for whom', async (t) => {
  // the central bank registry (BCRA Central de Deudores v1.0 format): one entity in situation 1
  const registry = await localServer(t, (r) => {
    const m = /^\/centraldedeudores\/v1\.0\/Deudas\/(?:(Historicas|ChequesRechazados)\/)?(\d{11})$/.exec(r.url);
    if (!m) return { status: 404, body: { status: 404, errorMessages: ['No se encontró datos.'] } };
    const results = { identificacion: Number(m[2]), denominacion: 'ROMERO ANA' };
    if (m[1] === 'ChequesRechazados')
      return { status: 200, body: { status: 200, results: { ...results, causales: [] } } };
    const entidades = [{ entidad: 'BANCO DE LA PROVINCIA DE CORDOBA S.A.', situacion: 1, monto: 85.0 }];
    return {
      status: 200,
      body: { status: 200, results: { ...results, periodos: [{ periodo: '202506', entidades }] } },
    };
  });
  const h = await build(t, { env: { BCRA_API_URL: registry.url } });

  // an admin (created with the command line) signs in
  const admin = await signIn(h, await cliUser(h, 'admin'));
  const adminId = (await me(admin)).user.id;

  // and invites an employee, who sets a password and signs in
  const employeeEmail = 'carla.employee@example.test';
  const invited = await admin.post('/api/users', { email: employeeEmail, name: 'Carla', role: 'employee' });
  status(invited, 201, 'invite');
  const employeeId = (json(invited).user ?? json(invited)).id;
  status(await setPassword(h, json(invited).set_password_url), [200, 201, 204]);
  const employee = await signIn(h, { email: employeeEmail, password: PASSWORD });
  assert.equal((await me(employee)).user.role, 'employee');

  // the admin sets up a plan and a key for the ERP
  const planRes = await admin.post('/api/credit-configs', {
    name: 'Consumo 3',
    installments_count: 3,
    interest_rate: 0.3,
  });
  status(planRes, 201);
  const keyRes = await admin.post('/api/keys', { name: 'ERP', scope: 'read' });
  status(keyRes, 201);
  const erpKey: string = json(keyRes).key ?? json(keyRes).secret;
  const erpKeyId: string = json(keyRes).id ?? json(keyRes).api_key?.id;
  status(await h.get('/api/clients', erpKey), 200);

  // the employee registers the client, checks the central bank registry, grants the credit
  const cRes = await employee.post('/api/clients', {
    dni: '30555666',
    first_name: 'Ana',
    last_name: 'Romero',
    cuit: validCuit('27'),
  });
  status(cRes, 201);
  const c = json(cRes);
  const vRes = await employee.post(`/api/clients/${c.id}/verifications`, { source: 'central_bank' });
  status(vRes, 201);
  const v = json(vRes);
  assert.equal(v.status, 'found');
  assert.equal(v.summary.worst_situation, 1);
  assert.equal(v.summary.total_debt, 85_000);
  assert.ok(String(v.created_by).includes(employeeId), `the lookup names the employee: ${v.created_by}`);
  const crRes = await employee.post(`/api/clients/${c.id}/credits`, {
    credit_config_id: json(planRes).id,
    amount: 90000,
  });
  status(crRes, 201);
  const cr = json(crRes).credit;
  assert.ok(String(cr.created_by).includes(employeeId), `the credit names the employee: ${cr.created_by}`);

  // an operator impersonates the admin and revokes the ERP key
  const op = await cliOperator(h);
  const operator = await signIn(h, op);
  status(await operator.post('/admin/impersonate', { user_id: adminId }), [200, 201, 204]);
  const as = await me(operator);
  assert.equal(as.user.id, adminId);
  assert.ok(
    JSON.stringify(as.impersonated_by).includes(op.email),
    'JSON.stringify(as.impersonated_by) includes op.email',
  );
  status(await operator.del(`/api/keys/${erpKeyId}`), 200);
  error(await h.get('/api/clients', erpKey), 401, 'unauthorized');
  status(await operator.post('/admin/impersonate/stop'), [200, 201, 204]);
  assert.equal((await me(operator)).impersonated_by, null);

  // the audit log: who did what, on whose behalf
  const log = await auditLog(h);
  const entry = (table: string, id: string, action?: string) => {
    const e = log.find(
      (x) => x.record_id === id && (!table || x.table_name === table) && (!action || x.action === action),
    );
    assert.ok(e, `an audit entry for ${table || 'the record'} ${id} ${action ?? ''}`);
    return e;
  };
  const plan = entry('credit_configs', json(planRes).id, 'INSERT');
  assert.ok(String(plan.actor).includes(adminId), `the plan by the admin: ${plan.actor}`);
  assert.equal(plan.impersonated_by, null);
  const client = entry('clients', c.id, 'INSERT');
  assert.ok(String(client.actor).includes(employeeId), `the client by the employee: ${client.actor}`);
  assert.equal(client.impersonated_by, null);
  const credit = entry('credits', cr.id, 'INSERT');
  assert.ok(String(credit.actor).includes(employeeId), `the credit by the employee: ${credit.actor}`);
  assert.equal(credit.impersonated_by, null);
  // ASSUMPTION: users and API keys are audited like the other tables ("every write is audited"),
  // under the record's id
  const invite = entry('', employeeId, 'INSERT');
  assert.ok(String(invite.actor).includes(adminId), `the invitation by the admin: ${invite.actor}`);
  // the revocation: done as the admin, on behalf of the operator (the key's own other entries, such
  // as its use by the ERP, are not impersonated)
  const revoked = log.filter((x) => x.record_id === erpKeyId && x.impersonated_by);
  assert.equal(revoked.length, 1, `one impersonated audit entry for the key: ${JSON.stringify(revoked)}`);
  assert.equal(revoked[0].impersonated_by, op.email, 'on behalf of the operator');
  assert.ok(String(revoked[0].actor).includes(adminId), `as the admin: ${revoked[0].actor}`);
  assert.notEqual(revoked[0].action, 'INSERT');
  // nothing else was done under impersonation but its own start and stop (docs/security.md, "Operators")
  const acted = log.filter((x) => x.impersonated_by && x.table_name !== 'impersonations');
  assert.deepEqual(new Set(acted.map((x) => x.record_id)), new Set([erpKeyId]));
  const own = log.filter((x) => x.table_name === 'impersonations');
  assert.deepEqual(own.map((x) => x.action).sort(), ['INSERT', 'UPDATE']);
  // and no secret of any kind in the log
  const text = JSON.stringify(log);
  assert.ok(!text.includes(erpKey) && !text.includes(PASSWORD) && !/\$argon2/.test(text), 'no secrets in the log');

  // the admin's own session is untouched
  assert.equal((await me(admin)).impersonated_by, null);
  error(await new Browser(h).get('/auth/me'), 401, 'unauthorized');
});
