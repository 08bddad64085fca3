// The users' story through the real app: an admin signs in and invites an
// employee; the employee sets a password from the link, signs in and grants a credit; an
// operator acts as the admin and revokes an API key; the audit log says who did each thing and
// on whose behalf.
import { test } from 'node:test';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { build, json } from '../../../helpers/app.ts';
import { PASSWORD, newUser, operatorSession, sessionOf, setCookies, signIn } from '../../../helpers/sessions.ts';

test('an admin invites an employee who grants a credit; an operator acting as the admin revokes a key; the audit log tells who and on whose behalf', async (t) => {
  const h = await build(t);
  const bid = h.tenant.businessId;
  // emails of this run's own: the PostgreSQL test database keeps earlier runs' users
  const tag = randomUUID().slice(0, 8);

  // the admin signs in
  const laura = await newUser(h, bid, 'admin', { email: `Laura-${tag}@Demo.example`, name: 'Laura' });
  const login = await signIn(h, `LAURA-${tag}@demo.EXAMPLE`); // any case
  const admin = sessionOf(laura.id, laura.email, login);
  assert.equal(json(login).user.id, laura.id);
  assert.equal(json(login).user.role, 'admin');
  assert.equal(json(login).business.id, bid);
  assert.equal(json(login).impersonated_by, null);

  const me = json(await h.app.inject({ method: 'GET', url: '/auth/me', headers: admin.read }));
  assert.equal(me.user.email, `laura-${tag}@demo.example`);
  assert.equal(me.business.id, bid);

  // the admin sets up a plan and invites an employee
  const plan = await h.app.inject({
    method: 'POST',
    url: '/api/credit-configs',
    headers: admin.write,
    payload: { name: 'Monthly 3', installments_count: 3, interest_rate: 0.2 },
  });
  assert.equal(plan.statusCode, 201, plan.body);
  const invite = await h.app.inject({
    method: 'POST',
    url: '/api/users',
    headers: admin.write,
    payload: { email: `marcos-${tag}@demo.example`, name: 'Marcos', role: 'employee' },
  });
  assert.equal(invite.statusCode, 201, invite.body);
  const { set_password_url, ...marcos } = json(invite);
  assert.equal(marcos.role, 'employee');
  assert.equal(marcos.password_set_at, null);
  const url = new URL(set_password_url);
  assert.equal(url.pathname, '/set-password');
  const token = new URLSearchParams(url.hash.slice(1)).get('token')!;
  assert.match(token, /^sp_[A-Za-z0-9_-]{43}$/);

  // the link's page, and the employee choosing a password there
  const page = await h.app.inject({ method: 'GET', url: '/set-password' });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.match(String(page.headers['content-security-policy']), /script-src 'sha256-/);
  const set = await h.app.inject({ method: 'POST', url: '/auth/set-password', payload: { token, password: PASSWORD } });
  assert.equal(set.statusCode, 200, set.body);
  assert.ok(json(set).user.password_set_at, 'holds: json(set).user.password_set_at');

  // the employee signs in and grants a credit to a client they register
  const employee = sessionOf(marcos.id, marcos.email, await signIn(h, `marcos-${tag}@demo.example`));
  const client = await h.app.inject({
    method: 'POST',
    url: '/api/clients',
    headers: employee.write,
    payload: { dni: '30123456', first_name: 'Ana', last_name: 'García' },
  });
  assert.equal(client.statusCode, 201, client.body);
  const credit = await h.app.inject({
    method: 'POST',
    url: `/api/clients/${json(client).id}/credits`,
    headers: employee.write,
    payload: { credit_config_id: json(plan).id, amount: 100000 },
  });
  assert.equal(credit.statusCode, 201, credit.body);
  const creditId = json(credit).credit.id;
  // ...but may not change a plan
  const planEdit = await h.app.inject({
    method: 'PUT',
    url: `/api/credit-configs/${json(plan).id}`,
    headers: employee.write,
    payload: { name: 'x' },
  });
  assert.equal(planEdit.statusCode, 403, planEdit.body);

  // an operator acts as the admin and revokes the business's full key
  const operator = await operatorSession(h);
  const businesses = json(await h.app.inject({ method: 'GET', url: '/admin/businesses', headers: operator.read }));
  assert.ok(
    businesses.some((b: { id: string }) => b.id === bid),
    'some b of businesses: b.id === bid',
  );
  const start = await h.app.inject({
    method: 'POST',
    url: '/admin/impersonate',
    headers: operator.write,
    payload: { user_id: laura.id },
  });
  assert.equal(start.statusCode, 200, start.body);
  assert.equal(json(start).user.id, laura.id);
  assert.equal(json(start).impersonated_by, operator.email);
  const acting = sessionOf(laura.id, laura.email, start);
  assert.notEqual(acting.token, operator.token, 'the session was replaced');
  const old = await h.app.inject({ method: 'GET', url: '/admin/businesses', headers: operator.read });
  assert.equal(old.statusCode, 401, "the operator's previous session ended");
  const asMe = json(await h.app.inject({ method: 'GET', url: '/auth/me', headers: acting.read }));
  assert.equal(asMe.impersonated_by, operator.email);
  assert.equal(asMe.user.id, laura.id);

  const keys = json(await h.app.inject({ method: 'GET', url: '/api/keys', headers: acting.read }));
  assert.ok(
    keys.some((k: { id: string }) => k.id === h.tenant.fullKeyId),
    'some k of keys: k.id === h.tenant.fullKeyId',
  );
  const revoke = await h.app.inject({
    method: 'DELETE',
    url: `/api/keys/${h.tenant.fullKeyId}`,
    headers: acting.write,
  });
  assert.equal(revoke.statusCode, 200, revoke.body);
  assert.ok(json(revoke).revoked_at, 'holds: json(revoke).revoked_at');
  assert.equal((await h.get('/api/branches')).statusCode, 401, 'the revoked key is refused at once');
  // but makes none in its place: a key would outlive the impersonation (docs/security.md)
  const refused = await h.app.inject({
    method: 'POST',
    url: '/api/keys',
    headers: acting.write,
    payload: { name: 'erp 2', scope: 'full' },
  });
  assert.equal(refused.statusCode, 403, refused.body);

  const stop = await h.app.inject({ method: 'POST', url: '/admin/impersonate/stop', headers: acting.write });
  assert.equal(stop.statusCode, 200, stop.body);
  assert.equal(json(stop).user, null);
  assert.equal(json(stop).operator.email, operator.email);
  assert.ok(setCookies(stop).lending_session?.value, 'a new session');
  assert.equal(
    (await h.app.inject({ method: 'GET', url: '/auth/me', headers: acting.read })).statusCode,
    401,
    'the impersonation session ended',
  );
  // Laura herself makes the replacement
  const replacement = await h.app.inject({
    method: 'POST',
    url: '/api/keys',
    headers: admin.write,
    payload: { name: 'erp 2', scope: 'full' },
  });
  assert.equal(replacement.statusCode, 201, replacement.body);
  const replacementId = json(replacement).id as string;

  // the audit log: the credit as the employee, the key's revocation as the admin on the operator's behalf
  const logs = async (q: string) =>
    json(await h.app.inject({ method: 'GET', url: `/api/logs?${q}`, headers: admin.read })).items as {
      table_name: string;
      action: string;
      record_id: string;
      actor: string;
      impersonated_by: string | null;
      new_data: Record<string, unknown> | null;
      old_data: Record<string, unknown> | null;
    }[];
  const creditRows = await logs(`table_name=credits&record_id=${creditId}`);
  assert.ok(creditRows.length > 0, 'holds: creditRows.length > 0');
  for (const r of creditRows) {
    assert.equal(r.actor, `user:${marcos.id}`);
    assert.equal(r.impersonated_by, null);
  }
  const keyRows = await logs(`table_name=api_keys&record_id=${h.tenant.fullKeyId}`);
  const revocation = keyRows.find((r) => r.action === 'UPDATE' && r.new_data?.revoked_at);
  assert.ok(revocation, JSON.stringify(keyRows));
  assert.equal(revocation.actor, `user:${laura.id}`);
  assert.equal(revocation.impersonated_by, operator.email);
  assert.ok(
    !('key_hash' in revocation.new_data!) && !('key_hash' in revocation.old_data!),
    "holds: !('key_hash' in revocation.new_data) && !('key_hash' in revocation.old_data)",
  );
  // the new key's creation, the same way; the keys the command line made at the start are not logged
  assert.ok(!keyRows.some((r) => r.action === 'INSERT'), "holds: !keyRows.some((r) => r.action === 'INSERT')");
  const [creation, ...more] = await logs(`table_name=api_keys&record_id=${replacementId}`);
  assert.equal(more.length, 0);
  assert.equal(creation?.action, 'INSERT');
  assert.equal(creation?.actor, `user:${laura.id}`);
  assert.equal(creation?.impersonated_by, null);
  // the impersonation itself: its start and its stop, by the operator
  const acted = await logs('table_name=impersonations');
  assert.deepEqual(acted.map((r) => r.action).sort(), ['INSERT', 'UPDATE']);
  for (const r of acted) assert.equal(r.impersonated_by, operator.email);
  assert.equal(creation?.new_data?.name, 'erp 2');
  assert.ok(!('key_hash' in creation!.new_data!), 'creation.new_data has no key_hash');
  assert.ok(
    !JSON.stringify(creation).includes(json(replacement).key),
    'holds: !JSON.stringify(creation).includes(json(replacement).key)',
  );
  // the invitation, by the admin herself
  const invited = (await logs(`table_name=users&record_id=${marcos.id}`)).find((r) => r.action === 'INSERT');
  assert.equal(invited?.actor, `user:${laura.id}`);
  assert.equal(invited?.impersonated_by, null);
  // setting the password, by the employee, without the hash
  const passwordSet = (await logs(`table_name=users&record_id=${marcos.id}`)).find(
    (r) => r.action === 'UPDATE' && r.new_data?.password_set_at && !r.old_data?.password_set_at,
  );
  assert.equal(passwordSet?.actor, `user:${marcos.id}`);
  assert.ok(!('password_hash' in passwordSet!.new_data!), 'passwordSet.new_data has no password_hash');
});
