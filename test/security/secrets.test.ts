// Passwords, session and CSRF tokens, set-password tokens, API key secrets and every hash of them
// never appear in an answer after the one that creates them, in a log line (the logger at trace)
// or in the audit log.
import { test } from 'node:test';
import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import assert from 'node:assert/strict';
import { build, json } from '../helpers/app.ts';
import { capturedLogger } from '../helpers/server.ts';
import { PASSWORD, operatorSession, sessionOf, signIn, userSession } from '../helpers/sessions.ts';

test('secrets of users, sessions, links and keys never show after creation: not in answers, logs or the audit log', async (t) => {
  const log = capturedLogger('trace');
  const h = await build(t, { logger: log.logger });
  const bid = h.tenant.businessId;
  const email = `secret-${randomUUID().slice(0, 8)}@b.example`;
  const admin = await userSession(h, bid, 'admin');
  const shown: string[] = [PASSWORD, admin.token, admin.csrf];
  const answers: string[] = [];
  const call = async (o: InjectOptions) => {
    const r = await h.app.inject(o);
    answers.push(r.body);
    return r;
  };

  // an invitation: the link's token is in this one answer
  const invite = await h.app.inject({
    method: 'POST',
    url: '/api/users',
    headers: admin.write,
    payload: { email, role: 'employee' },
  });
  const token = new URLSearchParams(new URL(json(invite).set_password_url).hash.slice(1)).get('token')!;
  shown.push(token);
  const newPassword = 'a very secret passphrase 42';
  shown.push(newPassword);
  await call({ method: 'POST', url: '/auth/set-password', payload: { token, password: newPassword } });
  const login = await h.app.inject({
    method: 'POST',
    url: '/auth/login',
    payload: { email, password: newPassword },
  });
  const emp = sessionOf(json(login).user.id, email, login);
  shown.push(emp.token, emp.csrf);
  answers.push(login.body);

  // a key created over HTTP: its secret is in this one answer
  const created = await h.app.inject({
    method: 'POST',
    url: '/api/keys',
    headers: admin.write,
    payload: { name: 'erp', scope: 'full' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const key = json(created).key as string;
  shown.push(key);
  assert.equal(
    (await call({ method: 'GET', url: '/api/clients', headers: { authorization: `Bearer ${key}` } })).statusCode,
    200,
  );
  await call({ method: 'GET', url: '/api/keys', headers: admin.read });
  await call({ method: 'DELETE', url: `/api/keys/${json(created).id}`, headers: admin.write });
  await call({ method: 'GET', url: '/api/users', headers: admin.read });
  await call({ method: 'GET', url: '/auth/me', headers: emp.read });
  await call({ method: 'PUT', url: `/api/users/${emp.id}`, headers: admin.write, payload: { name: 'Renamed' } });
  // wrong passwords and tokens sent are not logged either
  await call({
    method: 'POST',
    url: '/auth/login',
    payload: { email, password: 'a wrong passphrase 0' },
  });
  shown.push('a wrong passphrase 0');
  const op = await operatorSession(h);
  shown.push(op.token, op.csrf);
  const acting = await call({
    method: 'POST',
    url: '/admin/impersonate',
    headers: op.write,
    payload: { user_id: admin.id },
  });
  const as = sessionOf(admin.id, admin.email, acting);
  shown.push(as.token, as.csrf);
  await call({ method: 'POST', url: '/api/clients', headers: as.write, payload: { dni: 'secret-1' } });
  await call({ method: 'POST', url: '/auth/logout', headers: emp.write });

  const audit = json(await h.app.inject({ method: 'GET', url: '/api/logs?limit=100', headers: admin.read }));
  const stored = JSON.stringify(
    await h.db.kysely.selectFrom('audit_log').select(['old_data', 'new_data']).where('business_id', '=', bid).execute(),
  );
  const hashes = JSON.stringify([
    await h.db.kysely.selectFrom('users').select('password_hash').where('business_id', '=', bid).execute(),
    await h.db.kysely.selectFrom('sessions').select(['token_hash', 'csrf_hash']).execute(),
    await h.db.kysely.selectFrom('password_tokens').select('token_hash').where('business_id', '=', bid).execute(),
    await h.db.kysely.selectFrom('api_keys').select('key_hash').where('business_id', '=', bid).execute(),
  ])
    .match(/\$argon2id\$[^"]+|[0-9a-f]{64}/g)!
    .filter((x) => x.length >= 64);
  assert.ok(
    hashes.some((x) => x.startsWith('$argon2id$')),
    'passwords are argon2id hashes',
  );
  for (const secret of [...shown, ...hashes]) {
    const bit = secret.length > 40 ? secret.slice(-32) : secret;
    for (const [where, text] of [
      ['answers after creation', answers.join('\n')],
      ['the log', log.raw.join('\n')],
      ['the audit list', JSON.stringify(audit)],
      ['the audit rows', stored],
    ] as const)
      assert.ok(!text.includes(bit), `a secret (${secret.slice(0, 12)}…) shows in ${where}`);
  }
  for (const col of ['password_hash', 'token_hash', 'csrf_hash', 'key_hash']) assert.ok(!stored.includes(col), col);
  // the audit list has the users' and keys' rows, without their secrets
  const tables = new Set(audit.items.map((e: { table_name: string }) => e.table_name));
  assert.ok(tables.has('users') && tables.has('api_keys'), [...tables].join());
  assert.ok(log.lines.length > 10, 'the logger wrote');
});
