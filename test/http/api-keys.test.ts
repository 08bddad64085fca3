// API keys (contract "Authentication", docs/domain.md "Tenancy"): either header form, scopes,
// stored only as a hash, last_used_at kept, refused from the moment they are revoked; checked
// once and then served from memory, forgotten when the database announces a change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { build, json, type Harness } from '../helpers/app.ts';
import { testDbKind } from '../helpers/db.ts';
import { createApiKey, hashKey, listApiKeys } from '../../src/db/repositories/apiKeys.ts';
import { KeyCache, revokeKey } from '../../src/services/apiKeys.ts';

test('the key works in either header form, with any spacing or case of the scheme', async (t) => {
  const h = await build(t);
  const k = h.tenant.readKey;
  for (const headers of [
    { authorization: `Bearer ${k}` },
    { authorization: `bearer ${k}` },
    { authorization: `BEARER   ${k}  ` },
    { 'x-api-key': k },
    { 'x-api-key': ` ${k} ` },
    { 'X-API-Key': k },
  ]) {
    const res = await h.app.inject({ method: 'GET', url: '/api/branches', headers });
    assert.equal(res.statusCode, 200, `${JSON.stringify(headers)}: ${res.body}`);
  }
  const head = await h.app.inject({ method: 'HEAD', url: '/api/branches', headers: { 'x-api-key': k } });
  assert.equal(head.statusCode, 200);
});

test('missing, malformed and unknown keys are 401 unauthorized with the Error body', async (t) => {
  const h = await build(t);
  for (const headers of [
    {},
    { authorization: '' },
    { authorization: 'Bearer' },
    { authorization: 'Bearer ' },
    { authorization: `Token ${h.tenant.fullKey}` },
    { authorization: h.tenant.fullKey },
    { 'x-api-key': '' },
    { 'x-api-key': 'lk_full_nope' },
    { 'x-api-key': h.tenant.fullKey.toUpperCase() },
    { authorization: `Bearer ${h.tenant.fullKey}x` },
  ]) {
    const res = await h.app.inject({ method: 'GET', url: '/api/clients', headers });
    assert.equal(res.statusCode, 401, JSON.stringify(headers));
    const b = json(res);
    assert.equal(b.code, 'unauthorized');
    assert.equal(typeof b.error, 'string');
  }
});

test('a read key may use GET and HEAD; every write method is 403 forbidden, in both header forms', async (t) => {
  const h = await build(t);
  const client = json(await h.post('/api/clients', { dni: '1' }));
  const plan = json(await h.post('/api/credit-configs', { name: 'P' }));
  const branch = json(await h.post('/api/branches', { name: 'B' }));
  const writes: [string, string, object | undefined][] = [
    ['POST', '/api/clients', { dni: '2' }],
    ['PUT', `/api/clients/${client.id}`, { city: 'x' }],
    ['POST', '/api/credit-configs', { name: 'Q' }],
    ['PUT', `/api/credit-configs/${plan.id}`, { is_active: false }],
    ['POST', '/api/branches', { name: 'C' }],
    ['PUT', `/api/branches/${branch.id}`, { name: 'D' }],
    ['DELETE', `/api/branches/${branch.id}`, undefined],
  ];
  for (const [method, url, payload] of writes) {
    for (const headers of [{ authorization: `Bearer ${h.tenant.readKey}` }, { 'x-api-key': h.tenant.readKey }]) {
      const res = await h.app.inject({ method: method as 'POST', url, headers, ...(payload ? { payload } : {}) });
      assert.equal(res.statusCode, 403, `${method} ${url}`);
      assert.equal(json(res).code, 'forbidden');
    }
  }
  assert.equal(json(await h.get('/api/clients', h.tenant.readKey)).total, 1);
  assert.equal(json(await h.get('/api/branches', h.tenant.readKey))[0].deleted_at, null);
  assert.equal(json(await h.get(`/api/credit-configs/${plan.id}`, h.tenant.readKey)).is_active, true);
});

test('keys are stored only as a hash, carry 256 bits, and keep last_used_at', async (t) => {
  const h = await build(t);
  const a = await createApiKey(h.db.kysely, { businessId: h.tenant.businessId, scope: 'full', name: 'k1' });
  const b = await createApiKey(h.db.kysely, { businessId: h.tenant.businessId, scope: 'read', name: 'k2' });
  assert.match(a.key, /^lk_full_[A-Za-z0-9_-]{43,}$/);
  assert.match(b.key, /^lk_read_[A-Za-z0-9_-]{43,}$/);
  assert.notEqual(a.key, b.key);
  // the record shown to people has neither the secret nor its hash
  assert.ok(!JSON.stringify(a.record).includes(a.key), 'JSON.stringify(a.record) does not include a.key');
  assert.ok(!('key_hash' in a.record), 'a.record has no key_hash');

  const row = await h.db.kysely
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', a.record.id)
    .executeTakeFirstOrThrow();
  const secret = a.key.slice('lk_full_'.length);
  for (const [col, v] of Object.entries(row)) assert.ok(!String(v).includes(secret), `column ${col} holds the secret`);
  assert.match(row.key_hash, /^[0-9a-f]{64}$/);
  assert.equal(row.last_used_at, null);

  const before = Date.now();
  assert.equal((await h.get('/api/branches', a.key)).statusCode, 200);
  const used = (await listApiKeys(h.db.kysely, h.tenant.businessId)).find((k) => k.id === a.record.id)!;
  assert.ok(used.last_used_at, 'last_used_at is set by a request');
  assert.ok(used.last_used_at.getTime() >= before - 5_000, 'holds: used.last_used_at.getTime() >= before - 5_000');
  const other = (await listApiKeys(h.db.kysely, h.tenant.businessId)).find((k) => k.id === b.record.id)!;
  assert.equal(other.last_used_at, null);
});

test('a revoked key is refused from the next request on; revoking twice keeps the first time', async (t) => {
  const h = await build(t);
  const k = await createApiKey(h.db.kysely, { businessId: h.tenant.businessId, scope: 'full' });
  assert.equal((await h.get('/api/clients', k.key)).statusCode, 200);
  assert.equal((await h.post('/api/branches', { name: 'ok' }, k.key)).statusCode, 201);
  const r1 = await revokeKey(h.db, k.record.id);
  assert.ok(r1?.revoked_at, 'r1?.revoked_at is set');
  for (const res of [
    await h.get('/api/clients', k.key),
    await h.post('/api/branches', { name: 'no' }, k.key),
    await h.req({ method: 'GET', url: '/api/clients', key: null, headers: { 'x-api-key': k.key } }),
  ]) {
    assert.equal(res.statusCode, 401);
    assert.equal(json(res).code, 'unauthorized');
  }
  const r2 = await revokeKey(h.db, k.record.id);
  assert.equal(r2?.revoked_at?.getTime(), r1.revoked_at.getTime());
  // the other keys of the business still work
  assert.equal((await h.get('/api/clients')).statusCode, 200);
  assert.equal(json(await h.get('/api/branches')).length, 1);
});

/**
 * The status of requests with this key once it is refused, or after a second of 200s. A change
 * made in SQL reaches this process over the listening connection (on PostgreSQL, read on a later
 * turn of the event loop, as soon as the database has sent it); revokeKey waits for that itself.
 */
async function refusedSoon(h: Harness, key: string): Promise<number> {
  let status = 200;
  for (let i = 0; i < 100 && status === 200; i++) {
    if (i) await new Promise((r) => setTimeout(r, 10));
    status = (await h.get('/api/branches', key)).statusCode;
  }
  return status;
}

test('a key checked once is served from memory until the database announces a change to it', async (t) => {
  const h = await build(t);
  const cache = h.app.keyCache!;
  assert.ok(cache.isLive, 'the harness listens, as the server does');
  const k = await createApiKey(h.db.kysely, { businessId: h.tenant.businessId, scope: 'full' });
  const cached = () => cache.get(hashKey(k.key)) !== undefined;
  assert.equal(cached(), false);
  assert.equal((await h.get('/api/branches', k.key)).statusCode, 200);
  assert.equal(cached(), true);

  // revoked past the announcing trigger: no query sees it, the key keeps working (this is what
  // the trigger is for), until the announcement comes
  await h.db.kysely.transaction().execute(async (trx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(trx);
    await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${k.record.id}`.execute(trx);
  });
  assert.equal((await h.get('/api/branches', k.key)).statusCode, 200, 'served from memory');
  await sql`SELECT pg_notify('lending_api_keys', ${`key:${k.record.id}`})`.execute(h.db.kysely);
  assert.equal(await refusedSoon(h, k.key), 401);
  assert.equal(cached(), false);

  // last_used_at is no change: the key stays; a new time zone for the business or a deleted key is
  const k2 = await createApiKey(h.db.kysely, { businessId: h.tenant.businessId, scope: 'read' });
  const cached2 = () => cache.get(hashKey(k2.key)) !== undefined;
  assert.equal((await h.get('/api/branches', k2.key)).statusCode, 200);
  await sql`UPDATE api_keys SET last_used_at = now() - interval '1 hour' WHERE id = ${k2.record.id}`.execute(
    h.db.kysely,
  );
  assert.equal((await h.get('/api/branches', k2.key)).statusCode, 200);
  assert.equal(cached2(), true);
  await sql`UPDATE businesses SET timezone = 'America/Argentina/Buenos_Aires' WHERE id = ${h.tenant.businessId}`.execute(
    h.db.kysely,
  );
  // (on PostgreSQL the announcement comes over the listening connection: read on a later turn)
  for (let i = 0; i < 100 && cached2(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(cached2(), false, "a business's time zone travels with its keys");
  assert.equal((await h.get('/api/branches', k2.key)).statusCode, 200);
  assert.equal(cached2(), true);
  await sql`DELETE FROM api_keys WHERE id = ${k2.record.id}`.execute(h.db.kysely);
  assert.equal(await refusedSoon(h, k2.key), 401);
  // an unknown key is never kept: each try asks the database (a key created meanwhile works at once)
  assert.equal(cache.get(hashKey('lk_full_nope')), undefined);
});

test('while the listening connection is down the cache is unused and empty; back, it starts empty', {
  skip: testDbKind() !== 'postgres' && 'the embedded database has no connection to lose',
}, async (t) => {
  const h = await build(t);
  const cache = await KeyCache.start(h.db);
  t.after(() => cache.close());
  assert.ok(cache.isLive, 'cache.isLive is set');
  const { authenticate } = await import('../../src/services/apiKeys.ts');
  await authenticate(h.db, h.tenant.readKey, cache);
  assert.equal(cache.size, 1);
  // cut every listening connection of this process: this cache's and the harness's
  await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE application_name = ${`lending listen lending_api_keys pid ${process.pid}`}`.execute(h.db.kysely);
  for (let i = 0; i < 100 && cache.isLive; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(cache.isLive, false, 'the loss is noticed');
  assert.equal(cache.size, 0);
  await authenticate(h.db, h.tenant.readKey, cache);
  assert.equal(cache.size, 0, 'nothing is kept while announcements could be missed');
  for (let i = 0; i < 300 && !cache.isLive; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(cache.isLive, true, 'it listens again');
  await authenticate(h.db, h.tenant.readKey, cache);
  assert.equal(cache.size, 1);
  await cache.close();
  assert.equal(cache.isLive, false);
  assert.equal(cache.size, 0);
});
