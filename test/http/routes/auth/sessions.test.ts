// Sessions through the real app: the cookies, rotation on sign-in, sign-out, the idle and absolute
// limits (a clock the test moves), a disabled user's and a demoted user's sessions, the CSRF rule
// on /auth and /admin, and the set-password links (once, 72 hours, replaced by a newer one).
import { test } from 'node:test';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { build, createTenant, json, settableClock } from '../../../helpers/app.ts';
import {
  PASSWORD,
  newUser,
  operatorSession,
  sessionOf,
  setCookies,
  signIn,
  userSession,
} from '../../../helpers/sessions.ts';

test('the session cookies: HttpOnly session, readable csrf, SameSite=Lax, Path=/, Secure only over https', async (t) => {
  const h = await build(t);
  const u = await newUser(h, h.tenant.businessId, 'viewer');
  const c = setCookies(await signIn(h, u.email));
  assert.match(c.lending_session!.attrs, /HttpOnly/);
  assert.doesNotMatch(c.csrf!.attrs, /HttpOnly/);
  for (const k of ['lending_session', 'csrf'] as const) {
    assert.match(c[k]!.attrs, /SameSite=Lax/);
    assert.match(c[k]!.attrs, /Path=\//);
    assert.match(c[k]!.attrs, /Max-Age=43200/); // SESSION_MAX_HOURS 12
    assert.doesNotMatch(c[k]!.attrs, /Secure/);
  }
  // behind a trusted proxy that says https, and with an https PUBLIC_URL
  const hp = await build(t, { env: { TRUST_PROXY: 'true' } });
  const up = await newUser(hp, hp.tenant.businessId, 'viewer');
  const viaProxy = await hp.app.inject({
    method: 'POST',
    url: '/auth/login',
    headers: { 'x-forwarded-proto': 'https' },
    payload: { email: up.email, password: PASSWORD },
  });
  // over https the cookies are __Host- prefixed (test/security/accounts.test.ts, row 11)
  assert.match(setCookies(viaProxy)['__Host-lending_session']!.attrs, /Secure/);
  const hs = await build(t, { env: { PUBLIC_URL: 'https://lending.example.com' } });
  const us = await newUser(hs, hs.tenant.businessId, 'viewer');
  assert.match(setCookies(await signIn(hs, us.email))['__Host-csrf']!.attrs, /Secure/);
});

test('a sign-in replaces the session it came with; sign-out ends it (and needs the CSRF token)', async (t) => {
  const h = await build(t);
  const u = await newUser(h, h.tenant.businessId, 'employee');
  const first = sessionOf(u.id, u.email, await signIn(h, u.email));
  const again = await h.app.inject({
    method: 'POST',
    url: '/auth/login',
    headers: first.read,
    payload: { email: u.email, password: PASSWORD },
  });
  const second = sessionOf(u.id, u.email, again);
  assert.notEqual(second.token, first.token);
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me', headers: first.read })).statusCode, 401);
  assert.equal((await h.app.inject({ method: 'GET', url: '/api/clients', headers: first.read })).statusCode, 401);
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me', headers: second.read })).statusCode, 200);

  const noCsrf = await h.app.inject({ method: 'POST', url: '/auth/logout', headers: second.read });
  assert.equal(noCsrf.statusCode, 403);
  const out = await h.app.inject({ method: 'POST', url: '/auth/logout', headers: second.write });
  assert.equal(out.statusCode, 204);
  assert.match(setCookies(out).lending_session!.attrs, /Max-Age=0/);
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me', headers: second.read })).statusCode, 401);
  // signing out again, or without a session, is 204 too
  assert.equal((await h.app.inject({ method: 'POST', url: '/auth/logout', headers: second.write })).statusCode, 204);
  assert.equal((await h.app.inject({ method: 'POST', url: '/auth/logout' })).statusCode, 204);
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me' })).statusCode, 401);
});

test('a session ends after SESSION_IDLE_MINUTES unused and SESSION_MAX_HOURS after sign-in', async (t) => {
  const clock = settableClock(new Date('2026-03-20T12:00:00Z'));
  const h = await build(t, { clock, env: { SESSION_IDLE_MINUTES: '30', SESSION_MAX_HOURS: '2' } });
  const u = await newUser(h, h.tenant.businessId, 'viewer');
  const s = sessionOf(u.id, u.email, await signIn(h, u.email));
  const me = () => h.app.inject({ method: 'GET', url: '/api/branches', headers: s.read });
  // used every 25 minutes: the idle limit never comes
  for (let i = 1; i <= 4; i++) {
    clock.set(new Date(Date.parse('2026-03-20T12:00:00Z') + i * 25 * 60_000));
    assert.equal((await me()).statusCode, 200, `after ${i * 25} minutes`);
  }
  // two hours after sign-in it ends however used
  clock.set(new Date('2026-03-20T14:00:00Z'));
  assert.equal((await me()).statusCode, 401);

  const s2 = sessionOf(u.id, u.email, await signIn(h, u.email));
  clock.set(new Date('2026-03-20T14:29:00Z'));
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me', headers: s2.read })).statusCode, 200);
  clock.set(new Date('2026-03-20T15:00:00Z')); // 31 minutes unused
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me', headers: s2.read })).statusCode, 401);
});

test("a disabled user's sessions end and they cannot sign in; a new role counts from the next request", async (t) => {
  const h = await build(t);
  const bid = h.tenant.businessId;
  const admin = await userSession(h, bid, 'admin');
  const v = await userSession(h, bid, 'viewer');
  const post = (s: typeof v) =>
    h.app.inject({
      method: 'POST',
      url: '/api/clients',
      headers: s.write,
      payload: { dni: `r-${Date.now()}-${s.id.slice(0, 4)}` },
    });
  assert.equal((await post(v)).statusCode, 403);
  const promote = await h.app.inject({
    method: 'PUT',
    url: `/api/users/${v.id}`,
    headers: admin.write,
    payload: { role: 'employee' },
  });
  assert.equal(promote.statusCode, 200, promote.body);
  assert.equal((await post(v)).statusCode, 201);

  const disabled = await h.app.inject({ method: 'DELETE', url: `/api/users/${v.id}`, headers: admin.write });
  assert.equal(disabled.statusCode, 200);
  assert.ok(json(disabled).disabled_at, 'holds: json(disabled).disabled_at');
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me', headers: v.read })).statusCode, 401);
  assert.equal((await signIn(h, v.email, PASSWORD, {})).statusCode, 401);
  const enabled = await h.app.inject({
    method: 'PUT',
    url: `/api/users/${v.id}`,
    headers: admin.write,
    payload: { disabled: false },
  });
  assert.equal(json(enabled).disabled_at, null);
  assert.equal((await signIn(h, v.email)).statusCode, 200);
});

test('the last enabled admin stays one; emails are unique per business whatever their case; roles and branches are checked', async (t) => {
  const h = await build(t);
  const bid = h.tenant.businessId;
  const admin = await userSession(h, bid, 'admin');
  for (const payload of [{ role: 'viewer' }, { disabled: true }]) {
    const r = await h.app.inject({ method: 'PUT', url: `/api/users/${admin.id}`, headers: admin.write, payload });
    assert.equal(r.statusCode, 409, r.body);
  }
  assert.equal(
    (await h.app.inject({ method: 'DELETE', url: `/api/users/${admin.id}`, headers: admin.write })).statusCode,
    409,
  );
  const dup = await h.app.inject({
    method: 'POST',
    url: '/api/users',
    headers: admin.write,
    payload: { email: admin.email.toUpperCase(), role: 'viewer' },
  });
  assert.equal(dup.statusCode, 409);
  for (const payload of [
    { email: 'not-an-email', role: 'viewer' },
    { email: 'a@b.example', role: 'owner' },
    { email: 'a@b.example', role: 'viewer', password: 'x' },
  ]) {
    const r = await h.app.inject({ method: 'POST', url: '/api/users', headers: admin.write, payload });
    assert.equal(r.statusCode, 400, `${JSON.stringify(payload)}: ${r.body}`);
  }
  const badBranch = await h.app.inject({
    method: 'POST',
    url: '/api/users',
    headers: admin.write,
    payload: { email: 'b@b.example', role: 'viewer', branch_id: '00000000-0000-4000-8000-000000000000' },
  });
  assert.equal(badBranch.statusCode, 422, badBranch.body);
  // a second admin: now the first may step down
  const second = json(
    await h.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: admin.write,
      payload: { email: 'c@b.example', role: 'admin', current_password: PASSWORD },
    }),
  );
  const page = json(await h.app.inject({ method: 'GET', url: '/api/users?limit=1', headers: admin.read }));
  assert.equal(page.total, 2);
  assert.equal(page.items.length, 1);
  assert.equal(
    (await h.app.inject({ method: 'GET', url: `/api/users/${second.id}`, headers: admin.read })).statusCode,
    200,
  );
  const down = await h.app.inject({
    method: 'PUT',
    url: `/api/users/${admin.id}`,
    headers: admin.write,
    payload: { role: 'employee' },
  });
  assert.equal(down.statusCode, 200, down.body);
  // ...and, an employee now, may no longer manage users
  assert.equal((await h.app.inject({ method: 'GET', url: '/api/users', headers: admin.read })).statusCode, 403);
  // the same email in another business is another user
  const other = await h.newTenant();
  await newUser(h, other.businessId, 'viewer', { email: admin.email });
});

test('one email and password in two businesses: sign-in asks which (409), business_id picks it', async (t) => {
  const h = await build(t);
  const other = await h.newTenant();
  const email = `twice-${Date.now()}@test.example`;
  const a = await newUser(h, h.tenant.businessId, 'viewer', { email });
  const b = await newUser(h, other.businessId, 'admin', { email });
  const ask = await signIn(h, email);
  assert.equal(ask.statusCode, 409, ask.body);
  const inB = await signIn(h, email, PASSWORD, { business_id: other.businessId });
  assert.equal(json(inB).user.id, b.id);
  const inA = await signIn(h, email, PASSWORD, { business_id: h.tenant.businessId });
  assert.equal(json(inA).user.id, a.id);
});

test('set-password links: at least 12 characters, used once, 72 hours, replaced by a newer one; the old password stops working', async (t) => {
  const clock = settableClock(new Date('2026-03-20T12:00:00Z'));
  const h = await build(t, { clock });
  const fresh = `new-${randomUUID().slice(0, 8)}@b.example`;
  const admin = await userSession(h, h.tenant.businessId, 'admin');
  const invite = json(
    await h.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: admin.write,
      payload: { email: fresh, role: 'viewer' },
    }),
  );
  const tokenOf = (url: string) => new URLSearchParams(new URL(url).hash.slice(1)).get('token')!;
  const set = (token: string, password: string) =>
    h.app.inject({ method: 'POST', url: '/auth/set-password', payload: { token, password } });
  const t1 = tokenOf(invite.set_password_url);
  assert.equal((await set(t1, 'short pass')).statusCode, 400);
  assert.equal((await set('sp_nope', PASSWORD)).statusCode, 400);
  assert.equal((await set(`sp_${'A'.repeat(43)}`, PASSWORD)).statusCode, 410);

  // a newer link voids the first
  const relink = json(
    await h.app.inject({ method: 'POST', url: `/api/users/${invite.id}/password-link`, headers: admin.write }),
  );
  assert.equal((await set(t1, PASSWORD)).statusCode, 410);
  const t2 = tokenOf(relink.set_password_url);
  // 72 hours later it has expired
  clock.set(new Date('2026-03-23T12:00:01Z'));
  assert.equal((await set(t2, PASSWORD)).statusCode, 410);
  clock.set(new Date('2026-03-23T12:00:00Z'));
  const admin2 = sessionOf(admin.id, admin.email, await signIn(h, admin.email));
  const t3 = tokenOf(
    json(await h.app.inject({ method: 'POST', url: `/api/users/${invite.id}/password-link`, headers: admin2.write }))
      .set_password_url,
  );
  assert.equal((await set(t3, PASSWORD)).statusCode, 200);
  assert.equal((await set(t3, PASSWORD)).statusCode, 410, 'used once');
  const s = sessionOf(invite.id, fresh, await signIn(h, fresh));

  // a new password from a new link: the sessions end, the old password no longer opens
  const t4 = tokenOf(
    json(await h.app.inject({ method: 'POST', url: `/api/users/${invite.id}/password-link`, headers: admin2.write }))
      .set_password_url,
  );
  assert.equal((await set(t4, 'another long passphrase')).statusCode, 200);
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me', headers: s.read })).statusCode, 401);
  assert.equal((await signIn(h, fresh)).statusCode, 401);
  assert.equal((await signIn(h, fresh, 'another long passphrase')).statusCode, 200);
});

test('operators: /admin needs an operator (401 without a session, 403 for a user), and the CSRF token on writes', async (t) => {
  const h = await build(t);
  const user = await userSession(h, h.tenant.businessId, 'admin');
  const op = await operatorSession(h);
  assert.equal((await h.app.inject({ method: 'GET', url: '/admin/businesses' })).statusCode, 401);
  assert.equal((await h.app.inject({ method: 'GET', url: '/admin/businesses', headers: user.read })).statusCode, 403);
  assert.equal((await h.app.inject({ method: 'GET', url: '/admin/businesses', headers: op.read })).statusCode, 200);
  const body = { user_id: user.id };
  assert.equal(
    (await h.app.inject({ method: 'POST', url: '/admin/impersonate', headers: op.read, payload: body })).statusCode,
    403,
  );
  assert.equal(
    (
      await h.app.inject({
        method: 'POST',
        url: '/admin/impersonate',
        headers: { ...op.read, 'x-csrf-token': user.csrf },
        payload: body,
      })
    ).statusCode,
    403,
  );
  assert.equal(
    (
      await h.app.inject({
        method: 'POST',
        url: '/admin/impersonate',
        headers: op.write,
        payload: { user_id: '00000000-0000-4000-8000-000000000000' },
      })
    ).statusCode,
    404,
  );
  assert.equal(
    (await h.app.inject({ method: 'POST', url: '/admin/impersonate/stop', headers: op.write })).statusCode,
    409,
  );
  const me = json(await h.app.inject({ method: 'GET', url: '/auth/me', headers: op.read }));
  assert.equal(me.user, null);
  assert.equal(me.operator.email, op.email);
  // an operator not acting as a user has no business
  assert.equal((await h.app.inject({ method: 'GET', url: '/api/clients', headers: op.read })).statusCode, 403);
});

test('the session sweep deletes ended sessions, spent links and finished sign-in windows, and nothing live', async (t) => {
  // long before any other test's clock: the sign-in counters and sessions it deletes are its own
  // (the database is shared with tests running at the same time)
  const clock = settableClock(new Date('2001-03-20T12:00:00Z'));
  const h = await build(t, { clock });
  const u = await newUser(h, h.tenant.businessId, 'viewer');
  const ended = sessionOf(u.id, u.email, await signIn(h, u.email));
  clock.set(new Date('2001-03-21T12:00:00Z'));
  const live = sessionOf(u.id, u.email, await signIn(h, u.email));
  const { startSessionSweep } = await import('../../../../src/jobs/sessionSweep.ts');
  const runs: { ok: boolean; entries?: number }[] = [];
  const sweep = startSessionSweep(h.db, h.config, clock, { info() {}, error() {} }, (r) => runs.push(r));
  await sweep.firstRun;
  sweep.stop();
  assert.equal(runs[0]?.ok, true);
  assert.ok((runs[0]?.entries ?? 0) >= 2, JSON.stringify(runs)); // the ended session and the spent link at least
  const left = await h.db.kysely
    .selectFrom('sessions')
    .select('id')
    .where('business_id', '=', h.tenant.businessId)
    .execute();
  assert.equal(left.length, 1);
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me', headers: live.read })).statusCode, 200);
  assert.equal((await h.app.inject({ method: 'GET', url: '/auth/me', headers: ended.read })).statusCode, 401);
});

test('operators: the business list pages with limit/offset and finds by name or slug; without them it is the whole array, as before', async (t) => {
  const h = await build(t);
  const op = await operatorSession(h);
  const get = async (url: string) => h.app.inject({ method: 'GET', url, headers: op.read });
  const tag = `pag${randomUUID().slice(0, 8)}`;
  const made: string[] = [];
  for (const i of [1, 2, 3]) made.push((await createTenant(h.db, { name: `Financiera ${tag} ${i}` })).businessId);

  const whole = await get('/admin/businesses');
  assert.equal(whole.statusCode, 200);
  assert.ok(Array.isArray(json(whole)), 'no limit, offset or q: the array of before');
  assert.ok(
    made.every((id) => json(whole).some((b: { id: string }) => b.id === id)),
    'every id of made: json(whole).some((b) => b.id === id)',
  );

  // q: a part of the name, any case, oldest first; paged two at a time
  const first = await get(`/admin/businesses?q=${tag.toUpperCase()}&limit=2`);
  assert.equal(first.statusCode, 200, first.body);
  assert.deepEqual(
    { ...(json(first) as object), items: json(first).items.map((b: { id: string }) => b.id) },
    { items: made.slice(0, 2), total: 3, limit: 2, offset: 0 },
  );
  const second = json(await get(`/admin/businesses?q=${tag}&limit=2&offset=2`));
  assert.deepEqual(
    second.items.map((b: { id: string }) => b.id),
    [made[2]],
  );
  assert.equal(second.total, 3);
  // a part of the slug finds it too; only offset: a page of 50
  const slug = json(first).items[0].slug as string;
  const bySlug = json(await get(`/admin/businesses?q=${encodeURIComponent(slug)}&offset=0`));
  assert.equal(bySlug.limit, 50);
  assert.ok(
    bySlug.items.some((b: { id: string }) => b.id === made[0]),
    'some b of bySlug.items: b.id === made[0]',
  );
  // the whole list paged: total is every business
  const paged = json(await get('/admin/businesses?limit=1'));
  assert.equal(paged.total, json(whole).length);
  assert.equal(paged.items.length, 1);
  // LIKE's wildcards are plain characters in q
  assert.equal(json(await get(`/admin/businesses?q=${tag}%25&limit=5`)).total, 0);

  for (const bad of ['limit=0', 'limit=101', 'offset=-1', 'limit=x', 'colour=red']) {
    const r = await get(`/admin/businesses?${bad}`);
    assert.equal(r.statusCode, 400, `${bad}: ${r.body}`);
    assert.equal(json(r).code, 'validation_failed');
  }
});
