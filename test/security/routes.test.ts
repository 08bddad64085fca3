// The one security suite of the API: it runs against every /api route the app declares (read
// from the app, not listed here), so a route added later is covered without editing this file.
// Per route: no key, bad keys and a revoked key are 401; a read key on a write method, or on a read
// that needs more than a viewer, is 403;
// both header forms carry the key; another business's ids and malformed ids in the path are 404;
// every refusal is the Error body; another business's reads never show this business's ids; and
// nothing another business tries changes this business's data. Sessions the same way: no
// session, an ended or made-up one are 401; a write without the CSRF token (or with a wrong one)
// is 403; a role below the route's (a viewer writing) is 403; an operator not acting as a user is
// 403; another business's user gets 404 for this business's ids; a session reaches every route;
// the key-administration routes refuse every API key (403).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, createTenant, json } from '../helpers/app.ts';
import { createApiKey } from '../../src/db/repositories/apiKeys.ts';
import { revokeKey } from '../../src/services/apiKeys.ts';
import { sessionPolicy, signIn as startSession } from '../../src/services/sessions.ts';
import { PASSWORD, impersonation, newUser, operatorSession, userSession, type Signed } from '../helpers/sessions.ts';
import {
  apiRoutes,
  assertErrorBody,
  createFixtures,
  enumOf,
  fixtureFor,
  isUuidParam,
  isWrite,
  normalizePath,
  pathVariants,
  randomParam,
  requestFor,
  roleAllows,
  routerRoutes,
  type ApiRoute,
  type Call,
  type Fixtures,
} from '../helpers/security.ts';

// The contract endpoints this issue ships: the suite must see them, or its enumeration is broken.
const MUST_SEE = [
  'GET /api/clients/{id}',
  'GET /api/clients/{clientId}/credits',
  'GET /api/credits/{id}/ledger',
  'GET /api/credit-configs',
  'POST /api/credit-configs',
  'PUT /api/credit-configs/{id}',
  'GET /api/logs',
  'GET /api/branches',
  'GET /api/clients',
  'POST /api/clients',
  'PUT /api/clients/{id}',
  'GET /api/credit-configs/{id}',
  'POST /api/branches',
  'PUT /api/branches/{id}',
  'DELETE /api/branches/{id}',
];

const MALFORMED_IDS = [
  'not-a-uuid',
  '123',
  "1'%20OR%20'1'%3D'1",
  '00000000-0000-0000-0000-00000000000g',
  '%00',
  '%C3%B1%F0%9F%92%A5',
  '..%2F..%2Fetc%2Fpasswd',
  '%E0%A4%A', // not valid percent-encoding
  'x'.repeat(300),
  'x'.repeat(600),
  '{id}',
];

test('security: every /api route refuses what it must, in the Error body', async (t) => {
  const h = await build(t);
  const A = h.tenant;
  const B = await h.newTenant();
  const C = await createTenant(h.db); // a bystander whose keys show the route accepts both header forms
  const fa = await createFixtures(h, A.businessId, A.fullKey, 'a');
  const fb = await createFixtures(h, B.businessId, B.fullKey, 'b');
  const revoked = await createApiKey(h.db.kysely, { businessId: A.businessId, scope: 'full', name: 'to revoke' });
  assert.equal((await h.get('/api/branches', revoked.key)).statusCode, 200, 'the key works before it is revoked');
  await revokeKey(h.db, revoked.record.id);

  const routes = apiRoutes(h.app);
  const seen = new Set(routes.map((r) => `${r.method} ${r.path}`));
  for (const r of MUST_SEE) assert.ok(seen.has(r), `the suite does not see ${r}: its route enumeration is broken`);

  // the OpenAPI document lists every /api route the router serves, so the suite sees them all
  const documented = new Set(routes.map((r) => `${r.method} ${normalizePath(r.path)}`));
  const undocumented = [...routerRoutes(h.app)].filter(
    (r) => / \/api\//.test(r) && !r.startsWith('HEAD ') && !documented.has(r),
  );
  assert.deepEqual(undocumented, [], 'routes missing from /openapi.json (hidden routes escape the security suite)');

  // signed-in users of A (one a role), of B and of the bystander C, an operator on their own, and
  // an ended session of A's admin (signed in 13 hours ago: past SESSION_MAX_HOURS); all before
  // A's audit count is read, as signing in writes last_login_at
  const sa = {
    viewer: await userSession(h, A.businessId, 'viewer'),
    employee: await userSession(h, A.businessId, 'employee'),
    admin: await userSession(h, A.businessId, 'admin'),
  };
  const sb = await userSession(h, B.businessId, 'admin');
  const sc = await userSession(h, C.businessId, 'admin');
  const op = await operatorSession(h);
  // another operator, acting as C's admin (the bystander)
  const actingC = await impersonation(h, await operatorSession(h), sc);
  const old = await newUser(h, A.businessId, 'admin');
  const ended = await startSession(
    h.db,
    { email: old.email, password: PASSWORD, address: '192.0.2.13' },
    new Date(Date.now() - 13 * 3_600_000),
    sessionPolicy(h.config),
  );
  const cookies = (token: string, csrf: string) => ({ cookie: `lending_session=${token}; csrf=${csrf}` });

  const auditOfA = async () => json(await h.get('/api/logs?limit=1')).total as number;
  const auditBefore = await auditOfA();

  const send = (method: string, call: Call, headers: Record<string, string>) =>
    h.app.inject({
      method: method as 'GET',
      url: call.url,
      headers: { ...call.headers, ...headers },
      ...(call.payload !== undefined ? { payload: call.payload } : {}),
    });
  const bearer = (k: string) => ({ authorization: `Bearer ${k}` });
  const xkey = (k: string) => ({ 'x-api-key': k });

  /** path values: the tenant's resources where the suite can tell, random ones elsewhere */
  const valuesFor = (route: ApiRoute, f: Fixtures | null) =>
    Object.fromEntries(route.params.map((p) => [p.name, (f && fixtureFor(route.path, p.name, f)) ?? randomParam(p)]));
  const randomValues = (route: ApiRoute) => Object.fromEntries(route.params.map((p) => [p.name, randomParam(p)]));

  for (const route of routes) {
    const name = `${route.method} ${route.path}`;
    await t.test(name, async (st) => {
      const m = route.method;
      // a request that names nothing and, for writes, carries a body no route accepts
      const harmless = requestFor(route, randomValues(route), null, { valid: false });

      // 1. no key, and bad keys in either header, are 401 unauthorized
      assertErrorBody(await send(m, harmless, {}), 401, 'unauthorized', `${name} without a key`);
      const unknown = `lk_full_${'A'.repeat(43)}`;
      const tampered = A.fullKey.slice(0, -1) + (A.fullKey.endsWith('A') ? 'B' : 'A');
      const bad: [string, Record<string, string>][] = [
        ['unknown bearer key', bearer(unknown)],
        ['unknown X-API-Key', xkey(unknown)],
        ['tampered key', bearer(tampered)],
        ['tampered X-API-Key', xkey(tampered)],
        ['Basic scheme', { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }],
        ['Bearer without a key', { authorization: 'Bearer' }],
        ['Bearer with two words', { authorization: `Bearer ${A.fullKey} extra` }],
        ['the key without its scheme', { authorization: A.fullKey }],
        ['a huge key', xkey('k'.repeat(5000))],
        ['a key with a trailing byte', xkey(A.fullKey + 'x')],
        ['revoked key (Bearer)', bearer(revoked.key)],
        ['revoked key (X-API-Key)', xkey(revoked.key)],
      ];
      for (const [what, headers] of bad)
        assertErrorBody(await send(m, harmless, headers), 401, 'unauthorized', `${name} with ${what}`);
      if (m === 'GET') {
        const head = await h.app.inject({ method: 'HEAD', url: harmless.url });
        assert.equal(head.statusCode, 401, `HEAD ${route.path} without a key`);
      }

      // 2. scope: a read key may not write, in either header form, nor read what needs more than
      // a viewer (the users); it may read the rest
      const readKeyRefused = isWrite(m) || route.sessionsOnly || route.role !== 'viewer';
      if (readKeyRefused) {
        assertErrorBody(
          await send(m, harmless, bearer(A.readKey)),
          403,
          'forbidden',
          `${name} with a read key (Bearer)`,
        );
        assertErrorBody(
          await send(m, harmless, xkey(A.readKey)),
          403,
          'forbidden',
          `${name} with a read key (X-API-Key)`,
        );
      }
      // 3. both header forms carry the key (a bystander tenant, so nothing of A changes); the
      // routes for signed-in admins refuse every key
      const keys = readKeyRefused ? [C.fullKey] : [C.fullKey, C.readKey];
      for (const k of keys) {
        for (const [form, headers] of [
          ['Bearer', bearer(k)],
          ['X-API-Key', xkey(k)],
        ] as const) {
          const res = await send(m, harmless, headers);
          if (route.sessionsOnly) {
            assertErrorBody(res, 403, 'forbidden', `${name} for signed-in admins only, with a key (${form})`);
            continue;
          }
          assert.ok(
            ![401, 403].includes(res.statusCode) && res.statusCode < 500,
            `${name} with a valid key (${form}) got ${res.statusCode} ${res.body.slice(0, 200)}`,
          );
          if (m === 'GET' && route.params.length === 0 && !route.query.some((q) => q.required)) {
            assert.equal(res.statusCode, 200, `${name} with a valid key (${form}): ${res.body.slice(0, 200)}`);
          }
          if (res.statusCode >= 400) assertErrorBody(res, res.statusCode, undefined, `${name} (${form})`);
        }
      }

      // 3b. sessions: none, ended or made up is 401; a write needs the CSRF token (403); the role
      // must reach the route's (403); an operator on their own is 403; a session with the role
      // reaches the route (the bystander C's admin, so nothing of A changes)
      const made = `sess_${'A'.repeat(43)}`;
      for (const [what, headers] of [
        ['an ended session', cookies(ended.token, ended.csrf)],
        ['a made-up session', cookies(made, `csrf_${'B'.repeat(43)}`)],
        ['a malformed session', { cookie: 'lending_session=x; csrf=y' }],
      ] as const) {
        const hd = isWrite(m) ? { ...headers, 'x-csrf-token': headers.cookie.split('csrf=')[1]! } : headers;
        assertErrorBody(await send(m, harmless, hd), 401, 'unauthorized', `${name} with ${what}`);
      }
      if (isWrite(m)) {
        const s = sa.admin;
        for (const [what, headers] of [
          ['no X-CSRF-Token', s.read],
          ['a wrong X-CSRF-Token', { ...s.read, 'x-csrf-token': sc.csrf }],
          ['an X-CSRF-Token but no csrf cookie', { cookie: `lending_session=${s.token}`, 'x-csrf-token': s.csrf }],
          [
            'a csrf cookie and header of another session',
            { cookie: `lending_session=${s.token}; csrf=${sc.csrf}`, 'x-csrf-token': sc.csrf },
          ],
        ] as const)
          assertErrorBody(await send(m, harmless, headers), 403, 'forbidden', `${name} under a session with ${what}`);
      }
      for (const role of ['viewer', 'employee'] as const) {
        if (roleAllows(role, route)) continue;
        const s: Signed = sa[role];
        assertErrorBody(
          await send(m, harmless, isWrite(m) ? s.write : s.read),
          403,
          'forbidden',
          `${name} by a ${role} (needs ${route.role})`,
        );
      }
      assertErrorBody(
        await send(m, harmless, isWrite(m) ? op.write : op.read),
        403,
        'forbidden',
        `${name} by an operator not acting as a user`,
      );
      // what would outlive an impersonation (a key, a user, a link) is refused to an operator acting as C's admin
      if (route.notWhileImpersonating)
        assertErrorBody(
          await send(m, harmless, isWrite(m) ? actingC.write : actingC.read),
          403,
          'forbidden',
          `${name} by an operator acting as an admin`,
        );
      {
        const res = await send(m, harmless, isWrite(m) ? sc.write : sc.read);
        assert.ok(
          ![401, 403].includes(res.statusCode) && res.statusCode < 500,
          `${name} under an admin's session got ${res.statusCode} ${res.body.slice(0, 200)}`,
        );
        if (m === 'GET' && route.params.length === 0 && !route.query.some((q) => q.required))
          assert.equal(res.statusCode, 200, `${name} under an admin's session: ${res.body.slice(0, 200)}`);
      }
      // who B is, for the cross-business checks: its full key, or its admin's session where keys are refused
      const asB = (write: boolean) => (route.sessionsOnly ? (write ? sb.write : sb.read) : bearer(B.fullKey));
      const asA = route.sessionsOnly ? (isWrite(m) ? sa.admin.write : sa.admin.read) : bearer(A.fullKey);

      if (route.params.length > 0) {
        const unfilled = route.params
          .filter((p) => !fixtureFor(route.path, p.name, fa) && !enumOf(p.schema))
          .map((p) => p.name);
        if (unfilled.length) st.diagnostic(`${name}: no real resource for ${unfilled.join(', ')}; random values used`);
        // 4. another business's resources in the path: not found, with a body the route accepts
        const cross = requestFor(route, valuesFor(route, fa), fb);
        const res = await send(m, cross, asB(isWrite(m)));
        const control = await send(m, requestFor(route, randomValues(route), fb), asB(isWrite(m)));
        // B's admin, signed in, is another business's user: A's ids are not found for them either
        const bySession = await send(m, cross, isWrite(m) ? sb.write : sb.read);
        assert.ok(res.statusCode < 500 && control.statusCode < 500, `${name}: a 5xx ${res.body} ${control.body}`);
        if (res.statusCode === 400 && control.statusCode === 400) {
          // the suite could not build a body the route accepts: at least nothing tells the two apart
          st.diagnostic(`${name}: body refused before the id was looked up (${res.body.slice(0, 120)})`);
          assert.equal(json(res).code, json(control).code);
        } else {
          assertErrorBody(res, 404, 'not_found', `${name} with another business's ids (${cross.url})`);
          assertErrorBody(control, 404, 'not_found', `${name} with random ids`);
          assertErrorBody(bySession, 404, 'not_found', `${name}: another business's user, with this one's ids`);
        }
        const readCross = await send(m, requestFor(route, valuesFor(route, fa), fb), xkey(B.readKey));
        if (readKeyRefused) assertErrorBody(readCross, 403, 'forbidden', `${name}: B's read key`);
        else assertErrorBody(readCross, 404, 'not_found', `${name}: B's read key on A's ids`);

        // 5. malformed ids (and, for other parameters, random values) are 404, never 500
        for (const p of route.params) {
          const values = valuesFor(route, fa);
          const candidates = isUuidParam(p) ? MALFORMED_IDS : [randomParam(p)];
          for (const bad of candidates) {
            const call = requestFor(route, { ...values, [p.name]: bad }, fa);
            const r = await send(m, call, asA);
            assertErrorBody(r, 404, 'not_found', `${name} with ${p.name}=${bad.slice(0, 40)}`);
          }
        }
      }

      // 6. B's reads, with B's own resources in the path, never show A's ids
      if (m === 'GET') {
        for (const values of pathVariants(route, fb)) {
          const own = requestFor(route, values, fb);
          const res = await send(m, own, asB(false));
          assert.ok(res.statusCode < 500, `${name} for its own business: ${res.statusCode} ${res.body.slice(0, 200)}`);
          // with its own real resources in the path, a business reads them
          const allReal = route.params.every((p) => enumOf(p.schema) || fixtureFor(route.path, p.name, fb));
          if (allReal) assert.equal(res.statusCode, 200, `${own.url} for its own business: ${res.body.slice(0, 200)}`);
          const leaked = fa.ids.filter((id) => res.body.includes(id));
          assert.deepEqual(leaked, [], `${own.url} shows another business's ids`);
        }
      }
    });
  }

  await t.test("nothing another business tried changed this business's data", async () => {
    assert.equal(await auditOfA(), auditBefore, 'new audit rows in A: a refused request changed something');
    const detail = await h.get(`/api/clients/${fa.client.id}`);
    assert.equal(detail.statusCode, 200);
    const branches = json(await h.get('/api/branches')) as { id: string; deleted_at: string | null }[];
    assert.equal(branches.find((b) => b.id === fa.branch.id)?.deleted_at, null);
  });
});

test('under /api a path or method without a route still asks for the key first: 401, then 403 for a read key on a write, then 404', async (t) => {
  const h = await build(t);
  const client = json(await h.post('/api/clients', { dni: 'nf' }));
  for (const [method, url] of [
    ['GET', '/api/no-such-thing'],
    ['PATCH', `/api/clients/${client.id}`],
    ['DELETE', '/api/clients'],
    ['POST', '/api/logs'],
    ['GET', '/api'],
  ] as const) {
    assertErrorBody(await h.app.inject({ method, url }), 401, 'unauthorized', `${method} ${url} without a key`);
  }
  for (const [method, url] of [
    ['PATCH', `/api/clients/${client.id}`],
    ['DELETE', '/api/clients'],
    ['POST', '/api/logs'],
  ] as const) {
    assertErrorBody(
      await h.req({ method, url, key: h.tenant.readKey }),
      403,
      'forbidden',
      `${method} ${url} with a read key`,
    );
    assertErrorBody(await h.req({ method, url }), 404, 'not_found', `${method} ${url} with a full key`);
  }
  assertErrorBody(
    await h.get('/api/no-such-thing', h.tenant.readKey),
    404,
    'not_found',
    'unknown /api route with a key',
  );
  assertErrorBody(
    await h.app.inject({ method: 'GET', url: '/no-such-thing' }),
    404,
    'not_found',
    'unknown route outside /api',
  );
  assert.equal(json(await h.get(`/api/clients/${client.id}`)).client.dni, 'nf');
});
