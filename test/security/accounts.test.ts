// The ways into a business's accounts, attacked as an outsider would (docs/security.md): each test
// replays one attack through the real HTTP app and checks it no longer works. Sign-in failures
// are counted per account and per address (an IPv6 address by its /64), with progressive delays
// instead of a lock of the right password; no business is named to someone not signed in; admins,
// the admin role, set-password links and keys are made only from an admin's own session (not a
// key, not an operator acting as one); impersonations are in the business's audit log; the staff's
// audit entries are for admins and full keys; refused webhook URLs say nothing of the network;
// stored idempotent answers belong to their caller; cookies are __Host- over https.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { build, json, settableClock, type Harness } from '../helpers/app.ts';
import {
  PASSWORD,
  impersonation,
  newUser,
  operatorSession,
  sessionOf,
  setCookies,
  signIn,
  someAddress,
  userSession,
  type Signed,
} from '../helpers/sessions.ts';
import { createUser } from '../../src/services/users.ts';
import { setPasswordWithLink } from '../../src/services/sessions.ts';
import { passwordVerifications } from '../../src/services/passwords.ts';
import { actorContext } from '../../src/services/context.ts';

const WRONG = 'not the password, surely';
const tag = () => randomUUID().slice(0, 8);

/** A user of the business with a password of the test's choosing. */
async function userWithPassword(h: Harness, businessId: string, email: string, password: string, role = 'employee') {
  const ctx = actorContext({ businessId, timezone: 'UTC' }, 'cli', h.clock);
  const { user, link } = await createUser(h.db, ctx, { email, role: role as 'employee' });
  await setPasswordWithLink(h.db, link.token, password, h.clock());
  return user;
}

const as = (s: Signed, write = true) => (write ? s.write : s.read);

test('row 1: a success in another business with the same email does not reset the guessed account’s failures', async (t) => {
  const clock = settableClock(new Date('2026-03-20T12:00:00Z'));
  const h = await build(t, { clock });
  const a = h.tenant.businessId;
  const b = (await h.newTenant()).businessId;
  const email = `boss-${tag()}@b.example`;
  const victim = await newUser(h, b, 'admin', { email });
  // the attacker, admin of A, makes a user of A with the victim's email and a password they know
  await userWithPassword(h, a, email, 'the attacker knows this one');
  const attacker = someAddress();
  const guesses: number[] = [];
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < 4; i++)
      guesses.push((await signIn(h, email, `${WRONG} ${round}.${i}`, { business_id: b }, attacker)).statusCode);
    const own = await signIn(h, email, 'the attacker knows this one', { business_id: a }, attacker);
    assert.equal(own.statusCode, 200, own.body);
  }
  // five failures, then the sixth guess from that address waits (no time has passed)
  assert.deepEqual(guesses.slice(0, 5), [401, 401, 401, 401, 401]);
  assert.equal(guesses[5], 429, guesses.join());
  assert.ok(!guesses.slice(5).includes(401), `a guess got through: ${guesses.join()}`);
  const right = await signIn(h, email, PASSWORD, { business_id: b }, attacker);
  assert.equal(right.statusCode, 429, 'the right password from the guessing address waits too');
  assert.ok(Number(right.headers['retry-after']) >= 1, "holds: Number(right.headers['retry-after']) >= 1");
  // the victim, elsewhere, signs in
  const owner = await signIn(h, email, PASSWORD, { business_id: b }, someAddress());
  assert.equal(owner.statusCode, 200, owner.body);
  assert.equal(json(owner).user.id, victim.id);
});

test('row 2: an email open in several businesses is answered 409 without naming any business', async (t) => {
  const h = await build(t);
  const other = await h.newTenant();
  const email = `twice-${tag()}@example.com`;
  await newUser(h, h.tenant.businessId, 'viewer', { email });
  await newUser(h, other.businessId, 'viewer', { email });
  const both = await signIn(h, email, PASSWORD);
  assert.equal(both.statusCode, 409, both.body);
  for (const id of [h.tenant.businessId, other.businessId]) assert.doesNotMatch(both.body, new RegExp(id, 'i'));
  assert.doesNotMatch(both.body, /Test business/);
  assert.match(json(both).error, /business_id/);
  // a wrong password learns nothing either
  const wrong = await signIn(h, email, WRONG);
  assert.equal(wrong.statusCode, 401);
  assert.doesNotMatch(wrong.body, /business/);
  // with business_id it signs in
  assert.equal((await signIn(h, email, PASSWORD, { business_id: other.businessId })).statusCode, 200);
});

test('row 3: a full API key cannot make an admin, give the role or make a set-password link', async (t) => {
  const h = await build(t);
  const bid = h.tenant.businessId;
  const admin = await newUser(h, bid, 'admin');
  const employee = await newUser(h, bid, 'employee');
  const viaKey = await h.post('/api/users', { email: `x-${tag()}@evil.example`, role: 'admin' });
  assert.equal(viaKey.statusCode, 403, viaKey.body);
  assert.equal(json(viaKey).code, 'forbidden');
  const grant = await h.put(`/api/users/${employee.id}`, { role: 'admin' });
  assert.equal(grant.statusCode, 403, grant.body);
  const link = await h.post(`/api/users/${admin.id}/password-link`, {});
  assert.equal(link.statusCode, 403, link.body);
  // nothing changed: no admin made, the employee is still one
  const list = await h.get('/api/users?limit=100');
  assert.equal(json(list).items.filter((u: { role: string }) => u.role === 'admin').length, 1);
  assert.equal(json(await h.get(`/api/users/${employee.id}`)).role, 'employee');
  // a key may still invite an employee
  assert.equal((await h.post('/api/users', { email: `e-${tag()}@ok.example`, role: 'employee' })).statusCode, 201);

  // an admin's session: the current password, again
  const s = sessionOf(admin.id, admin.email, await signIn(h, admin.email));
  const send = (payload: object, method: 'POST' | 'PUT' = 'POST', url = '/api/users') =>
    h.app.inject({ method, url, headers: as(s), payload });
  const missing = await send({ email: `a-${tag()}@ok.example`, role: 'admin' });
  assert.equal(missing.statusCode, 400, missing.body);
  assert.equal(json(missing).details[0].path, '/current_password');
  const wrong = await send({ email: `a-${tag()}@ok.example`, role: 'admin', current_password: WRONG });
  assert.equal(wrong.statusCode, 403, wrong.body);
  const made = await send({ email: `a-${tag()}@ok.example`, role: 'admin', current_password: PASSWORD });
  assert.equal(made.statusCode, 201, made.body);
  assert.equal(json(made).role, 'admin');
  assert.doesNotMatch(made.body, /current_password|correct horse/);
  assert.equal((await send({ role: 'admin' }, 'PUT', `/api/users/${employee.id}`)).statusCode, 400);
  const granted = await send({ role: 'admin', current_password: PASSWORD }, 'PUT', `/api/users/${employee.id}`);
  assert.equal(granted.statusCode, 200, granted.body);
  assert.equal(json(granted).role, 'admin');
  // an admin already: nothing to confirm
  assert.equal((await send({ role: 'admin', name: 'Ok' }, 'PUT', `/api/users/${employee.id}`)).statusCode, 200);
  // links from the session
  const linked = await h.app.inject({
    method: 'POST',
    url: `/api/users/${employee.id}/password-link`,
    headers: as(s),
  });
  assert.equal(linked.statusCode, 201, linked.body);
});

test('row 3: wrong current passwords count as sign-in failures of the admin’s account', async (t) => {
  const clock = settableClock(new Date('2026-03-20T12:00:00Z'));
  const h = await build(t, { clock });
  const admin = await newUser(h, h.tenant.businessId, 'admin');
  const s = sessionOf(admin.id, admin.email, await signIn(h, admin.email, PASSWORD, {}, '198.18.77.1'));
  const codes: number[] = [];
  for (let i = 0; i < 7; i++) {
    const r = await h.app.inject({
      method: 'POST',
      url: '/api/users',
      remoteAddress: '198.18.77.1',
      headers: s.write,
      payload: { email: `a-${tag()}@ok.example`, role: 'admin', current_password: `${WRONG} ${i}` },
    });
    codes.push(r.statusCode);
  }
  assert.deepEqual(codes.slice(0, 5), [403, 403, 403, 403, 403]);
  assert.equal(codes[5], 429, codes.join());
  // the guessing address now waits at sign-in too
  assert.equal((await signIn(h, admin.email, PASSWORD, {}, '198.18.77.1')).statusCode, 429);
});

test('row 4: failures from anywhere do not lock the right password out of an address that did not fail', async (t) => {
  const clock = settableClock(new Date('2026-03-20T12:00:00Z'));
  const h = await build(t, { clock });
  const u = await newUser(h, h.tenant.businessId, 'admin');
  const op = await operatorSession(h);
  const guesser = someAddress();
  for (const email of [u.email, op.email]) {
    for (let i = 0; i < 5; i++) assert.equal((await signIn(h, email, WRONG, {}, guesser)).statusCode, 401);
    for (let i = 0; i < 3; i++) assert.equal((await signIn(h, email, WRONG, {}, someAddress())).statusCode, 401);
    // the owner, from an address without failures: in
    assert.equal((await signIn(h, email, PASSWORD, {}, someAddress())).statusCode, 200, email);
  }
  // a success forgets the account's failures: the guesser's address is no longer delayed
  assert.equal((await signIn(h, u.email, WRONG, {}, guesser)).statusCode, 401);

  // progressive: an address that failed waits 1 s, then 2 s, 4 s ... between attempts
  const v = await newUser(h, h.tenant.businessId, 'viewer');
  const here = someAddress();
  for (let i = 0; i < 5; i++) await signIn(h, v.email, WRONG, {}, here);
  const wait1 = await signIn(h, v.email, PASSWORD, {}, here);
  assert.equal(wait1.statusCode, 429);
  assert.equal(wait1.headers['retry-after'], '1');
  clock.set(new Date('2026-03-20T12:00:01Z'));
  assert.equal((await signIn(h, v.email, WRONG, {}, here)).statusCode, 401);
  const wait2 = await signIn(h, v.email, WRONG, {}, here);
  assert.equal(wait2.statusCode, 429);
  assert.equal(wait2.headers['retry-after'], '2');
  clock.set(new Date('2026-03-20T12:00:03Z'));
  assert.equal((await signIn(h, v.email, PASSWORD, {}, here)).statusCode, 200);
});

test('row 4: attempts sent at once from one address cannot slip past the delay', async (t) => {
  const clock = settableClock(new Date('2026-03-20T12:00:00Z'));
  const h = await build(t, { clock });
  const u = await newUser(h, h.tenant.businessId, 'viewer');
  const here = someAddress();
  for (let i = 0; i < 5; i++) await signIn(h, u.email, WRONG, {}, here);
  // the delay of 1 s has passed: one attempt may come, and only one
  clock.set(new Date('2026-03-20T12:00:01Z'));
  const all = await Promise.all(Array.from({ length: 8 }, () => signIn(h, u.email, WRONG, {}, here)));
  const codes = all.map((r) => r.statusCode).sort();
  assert.equal(codes.filter((c) => c === 401).length, 1, codes.join());
  assert.equal(codes.filter((c) => c === 429).length, 7, codes.join());
});

test('row 5: addresses of one IPv6 /64 count as one, and an IPv4-mapped address as its IPv4', async (t) => {
  const h = await build(t, { env: { LOGIN_FAILURES_PER_ADDRESS: '20' } });
  const net = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:7`;
  const codes: number[] = [];
  for (let i = 1; i <= 25; i++)
    codes.push((await signIn(h, `nobody-${tag()}@x.example`, WRONG, {}, `${net}::${i.toString(16)}`)).statusCode);
  assert.equal(codes.filter((c) => c === 401).length, 20, codes.join());
  assert.equal(codes.filter((c) => c === 429).length, 5, codes.join());
  // another /64 is not concerned
  assert.equal((await signIn(h, `nobody@x.example`, WRONG, {}, `2001:db8:ffff:8::1`)).statusCode, 401);

  const v4 = someAddress();
  const h2 = await build(t, { env: { LOGIN_FAILURES_PER_ADDRESS: '2' } });
  assert.equal((await signIn(h2, `n1-${tag()}@x.example`, WRONG, {}, v4)).statusCode, 401);
  assert.equal((await signIn(h2, `n2-${tag()}@x.example`, WRONG, {}, `::ffff:${v4}`)).statusCode, 401);
  assert.equal((await signIn(h2, `n3-${tag()}@x.example`, WRONG, {}, v4)).statusCode, 429);
});

test('row 5: PUBLIC_RATE_LIMIT counts an IPv6 /64 as one address', async (t) => {
  const h = await build(t, { env: { PUBLIC_RATE_LIMIT: '5' } });
  const net = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:9`;
  const codes: number[] = [];
  for (let i = 1; i <= 7; i++) {
    const r = await h.app.inject({
      method: 'POST',
      url: '/auth/set-password',
      remoteAddress: `${net}::${i}`,
      payload: { token: 'sp_x', password: PASSWORD },
    });
    codes.push(r.statusCode);
  }
  assert.deepEqual(codes, [400, 400, 400, 400, 400, 429, 429]);
});

test('row 6: users, api_keys and impersonations entries of the audit log are for admins and full keys', async (t) => {
  const h = await build(t);
  const bid = h.tenant.businessId;
  const admin = await userSession(h, bid, 'admin');
  const viewer = await userSession(h, bid, 'viewer');
  const employee = await userSession(h, bid, 'employee');
  // staff changes and a client
  await h.put(`/api/users/${employee.id}`, { name: 'Renamed' });
  const key = await h.app.inject({
    method: 'POST',
    url: '/api/keys',
    headers: admin.write,
    payload: { scope: 'read' },
  });
  assert.equal(key.statusCode, 201, key.body);
  await h.app.inject({ method: 'DELETE', url: `/api/keys/${json(key).id}`, headers: admin.write });
  assert.equal(
    (await h.post('/api/clients', { dni: `${Date.now()}`.slice(-8), first_name: 'A', last_name: 'B' })).statusCode,
    201,
  );

  const logs = async (headers: Record<string, string>, q = '') => {
    const r = await h.app.inject({ method: 'GET', url: `/api/logs?limit=100${q}`, headers });
    assert.equal(r.statusCode, 200, r.body);
    return json(r) as { items: { table_name: string }[]; total: number };
  };
  const full = await logs({ authorization: `Bearer ${h.tenant.fullKey}` });
  const staff = ['users', 'api_keys', 'impersonations'];
  const staffTotal = (
    await Promise.all(staff.map((t) => logs({ authorization: `Bearer ${h.tenant.fullKey}` }, `&table_name=${t}`)))
  ).reduce((n, p) => n + p.total, 0);
  assert.ok(
    full.items.some((e) => e.table_name === 'users'),
    "some e of full.items: e.table_name === 'users'",
  );
  assert.ok(
    full.items.some((e) => e.table_name === 'api_keys'),
    "some e of full.items: e.table_name === 'api_keys'",
  );
  assert.deepEqual((await logs(admin.read)).total, full.total);
  for (const reader of [viewer.read, employee.read, { authorization: `Bearer ${h.tenant.readKey}` }]) {
    const page = await logs(reader);
    assert.ok(
      !page.items.some((e) => staff.includes(e.table_name)),
      JSON.stringify(page.items.map((e) => e.table_name)),
    );
    assert.equal(page.total, full.total - staffTotal);
    for (const t of staff) {
      const only = await logs(reader, `&table_name=${t}`);
      assert.deepEqual([only.items.length, only.total], [0, 0], t);
    }
    const ofUser = await logs(reader, `&record_id=${employee.id}`);
    assert.equal(ofUser.total, 0);
    // and the export
    const csv = await h.app.inject({ method: 'GET', url: '/api/reports/exports/logs.csv', headers: reader });
    assert.equal(csv.statusCode, 200);
    assert.doesNotMatch(csv.body, /,users,|,api_keys,/);
  }
  const fullCsv = await h.get('/api/reports/exports/logs.csv');
  assert.match(fullCsv.body, /,users,/);
});

test('row 7: an operator acting as an admin makes no key, user or link, and the impersonation is in the audit log', async (t) => {
  const h = await build(t);
  const bid = h.tenant.businessId;
  const admin = await newUser(h, bid, 'admin');
  const employee = await newUser(h, bid, 'employee');
  const op = await operatorSession(h);
  const acting = await impersonation(h, op, admin);
  const tries = [
    { url: '/api/keys', payload: { scope: 'full', name: 'backdoor' } },
    { url: '/api/users', payload: { email: `x-${tag()}@evil.example`, role: 'employee' } },
    { url: '/api/users', payload: { email: `y-${tag()}@evil.example`, role: 'admin', current_password: PASSWORD } },
    { url: `/api/users/${employee.id}/password-link`, payload: {} },
  ];
  for (const tr of tries) {
    const r = await h.app.inject({ method: 'POST', url: tr.url, headers: acting.write, payload: tr.payload });
    assert.equal(r.statusCode, 403, `${tr.url}: ${r.body}`);
  }
  const grant = await h.app.inject({
    method: 'PUT',
    url: `/api/users/${employee.id}`,
    headers: acting.write,
    payload: { role: 'admin', current_password: PASSWORD },
  });
  assert.equal(grant.statusCode, 403, grant.body);
  const keys = await h.app.inject({ method: 'GET', url: '/api/keys', headers: acting.read });
  assert.ok(
    !json(keys).some((k: { name: string | null }) => k.name === 'backdoor'),
    "holds: !json(keys).some((k) => k.name === 'backdoor')",
  );
  // what outlives nothing is still possible: reading, and ordinary writes
  assert.equal((await h.app.inject({ method: 'GET', url: '/api/users', headers: acting.read })).statusCode, 200);
  const stopped = await h.app.inject({ method: 'POST', url: '/admin/impersonate/stop', headers: acting.write });
  assert.equal(stopped.statusCode, 200, stopped.body);

  const log = json(await h.get('/api/logs?table_name=impersonations&limit=10'));
  const byAction = Object.fromEntries(log.items.map((e: { action: string }) => [e.action, e]));
  assert.equal(log.total, 2);
  assert.equal(byAction.INSERT.actor, `operator:${op.id}`);
  assert.equal(byAction.INSERT.impersonated_by, op.email);
  assert.equal(byAction.INSERT.new_data.user_id, admin.id);
  assert.equal(byAction.INSERT.new_data.ended_at, null);
  assert.equal(byAction.UPDATE.old_data.ended_at, null);
  assert.ok(byAction.UPDATE.new_data.ended_at, 'byAction.UPDATE.new_data.ended_at is set');
  assert.equal(byAction.UPDATE.record_id, byAction.INSERT.record_id);
});

test('row 7: signing out while acting as a user ends the impersonation in the audit log', async (t) => {
  const h = await build(t);
  const admin = await newUser(h, h.tenant.businessId, 'admin');
  const acting = await impersonation(h, await operatorSession(h), admin);
  assert.equal((await h.app.inject({ method: 'POST', url: '/auth/logout', headers: acting.write })).statusCode, 204);
  const log = json(await h.get('/api/logs?table_name=impersonations&action=UPDATE'));
  assert.equal(log.total, 1);
  assert.ok(log.items[0].new_data.ended_at, 'log.items[0].new_data.ended_at is set');
});

/** The argon2 verifications run() costs: a count, so the machine's load cannot sway it as it sways a clock. */
async function verificationsOf(run: () => Promise<unknown>): Promise<number> {
  const before = passwordVerifications();
  await run();
  return passwordVerifications() - before;
}

test('row 8: an operator’s email with business_id costs a password hash, as an unknown email does (a decoy)', async (t) => {
  const h = await build(t);
  const op = await operatorSession(h);
  const bid = h.tenant.businessId;
  const user = await newUser(h, bid, 'viewer');
  // without a decoy the operator's email skipped the argon2 hash, the bulk of a sign-in's time
  const costs = {
    operator: await verificationsOf(() => signIn(h, op.email, WRONG, { business_id: bid })),
    unknown: await verificationsOf(() => signIn(h, `nobody-${tag()}@x.example`, WRONG, { business_id: bid })),
    user: await verificationsOf(() => signIn(h, user.email, WRONG, { business_id: bid })),
  };
  assert.deepEqual(costs, { operator: 1, unknown: 1, user: 1 }, JSON.stringify(costs));
  const refused = await signIn(h, op.email, WRONG, { business_id: bid });
  assert.equal(refused.statusCode, 401, refused.body);
});

test('row 9: a refused webhook URL is answered the same whatever its host resolves to', async (t) => {
  const h = await build(t, { env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
  const answers = [];
  for (const url of [
    'https://localhost/hooks',
    'https://127.0.0.1/x',
    'https://no-such-host.invalid/x',
    'https://[::1]/',
  ]) {
    const r = await h.post('/api/webhook-endpoints', { url, events: ['*'] });
    assert.equal(r.statusCode, 422, `${url}: ${r.body}`);
    assert.doesNotMatch(r.body, /127\.0\.0\.1|::1|resolves to|does not resolve|localhost|invalid/, url);
    answers.push([json(r).error, JSON.stringify(json(r).details)]);
  }
  assert.equal(new Set(answers.map((a) => a.join('|'))).size, 1, JSON.stringify(answers));
  assert.equal(json(await h.get('/api/webhook-endpoints')).length, 0);
});

test('row 10: another caller sending the same Idempotency-Key and body gets a write of its own', async (t) => {
  const h = await build(t);
  const bid = h.tenant.businessId;
  const first = await userSession(h, bid, 'admin');
  const second = await userSession(h, bid, 'admin');
  const key = `shared-${tag()}`;
  const mint = (s: Signed) =>
    h.app.inject({
      method: 'POST',
      url: '/api/keys',
      headers: { ...s.write, 'idempotency-key': key },
      payload: { scope: 'full', name: 'ERP' },
    });
  const a = await mint(first);
  const b = await mint(second);
  assert.equal(a.statusCode, 201, a.body);
  assert.equal(b.statusCode, 201, b.body);
  assert.equal(b.headers['idempotent-replayed'], undefined);
  assert.notEqual(json(b).key, json(a).key);
  assert.notEqual(json(b).id, json(a).id);
  // the same caller again: the first answer
  const again = await mint(first);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(json(again).key, json(a).key);

  // keys of one business: the same
  const other = json(await mint(first)).key as string;
  const branch = (k: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/branches',
      headers: { authorization: `Bearer ${k}`, 'idempotency-key': key },
      payload: { name: 'Centro' },
    });
  const b1 = await branch(h.tenant.fullKey);
  const b2 = await branch(other);
  assert.equal(b2.statusCode, 201);
  assert.notEqual(json(b2).id, json(b1).id);
  assert.equal(b2.headers['idempotent-replayed'], undefined);
});

test('row 11: over https the session cookies are __Host- prefixed and Secure, and work', async (t) => {
  const h = await build(t, { env: { PUBLIC_URL: 'https://lending.example.com' } });
  const u = await newUser(h, h.tenant.businessId, 'employee');
  const res = await signIn(h, u.email);
  assert.equal(res.statusCode, 200, res.body);
  const c = setCookies(res);
  assert.deepEqual(Object.keys(c).sort(), ['__Host-csrf', '__Host-lending_session']);
  for (const v of Object.values(c)) {
    assert.match(v.attrs, /Secure/);
    assert.match(v.attrs, /Path=\//);
    assert.doesNotMatch(v.attrs, /Domain/i);
  }
  assert.match(c['__Host-lending_session']!.attrs, /HttpOnly/);
  const cookie = `__Host-lending_session=${c['__Host-lending_session']!.value}; __Host-csrf=${c['__Host-csrf']!.value}`;
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me', headers: { cookie } })).statusCode, 200);
  const write = await h.app.inject({
    method: 'POST',
    url: '/api/clients',
    headers: { cookie, 'x-csrf-token': c['__Host-csrf']!.value },
    payload: { dni: `${Date.now()}`.slice(-8), first_name: 'Ana', last_name: 'Paz' },
  });
  assert.equal(write.statusCode, 201, write.body);
  // the unprefixed names are not read over https: a cookie planted by a sibling host is worth nothing
  const planted = `lending_session=${c['__Host-lending_session']!.value}`;
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me', headers: { cookie: planted } })).statusCode, 401);
});
