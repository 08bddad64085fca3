// Idempotency-Key on every POST under /api (docs/api.md, Idempotency keys), through the real app:
// a retry with the same key replays the first answer and writes nothing (the audit log, which
// records every write, does not move), another request under the key is 409, a refusal is not
// stored, a key older than IDEMPOTENCY_TTL_HOURS may name another request, the sweep deletes
// expired keys, and keys belong to a business. Credit creation and payments: test/services/lending/idempotent-payments.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { build, json, type Harness } from '../helpers/app.ts';
import { testDbKind } from '../helpers/db.ts';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { keyDigest, sweepIdempotencyKeys } from '../../src/services/idempotency.ts';
import { userSession } from '../helpers/sessions.ts';
import { startIdempotencySweep } from '../../src/jobs/idempotencySweep.ts';
import { client, credit, plan } from '../helpers/book.ts';
import { fileForm, png, pdf } from '../helpers/file-fixtures.ts';
import { storedFiles } from '../helpers/files.ts';

const silent = { info() {}, error() {} };

function send(h: Harness, url: string, body: unknown, key: string | null, bizKey?: string) {
  return h.req({
    method: 'POST',
    url,
    ...(body === undefined ? {} : { payload: body as object }),
    headers: key === null ? {} : { 'idempotency-key': key },
    key: bizKey,
  });
}

function sendFile(h: Harness, clientId: string, name: string, data: Buffer, key: string) {
  const f = fileForm(name, data);
  return h.req({
    method: 'POST',
    url: `/api/clients/${clientId}/files`,
    payload: f.payload,
    headers: { 'content-type': f.contentType, 'idempotency-key': key },
  });
}

async function count(h: Harness, table: string, businessId = h.tenant.businessId, where = sql`true`): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}
    WHERE business_id = ${businessId} AND ${where}`.execute(h.db.kysely);
  return r.rows[0]!.n;
}

/** The audit log records every write of the business: a replay must not move it. */
const writes = (h: Harness) => count(h, 'audit_log');

async function ageKey(h: Harness, key: string, hours: number, businessId = h.tenant.businessId) {
  await sql`UPDATE idempotency_keys SET created_at = now() - make_interval(secs => ${hours * 3600})
    WHERE business_id = ${businessId} AND key_digest = ${keyDigest(key)}`.execute(h.db.kysely);
}

function assertReplay(again: LightMyRequestResponse, first: LightMyRequestResponse, what: string) {
  assert.equal(again.statusCode, first.statusCode, `${what}: ${again.body}`);
  assert.equal(again.headers['idempotent-replayed'], 'true', what);
  assert.equal(again.body, first.body, what);
}

/**
 * The round every write goes through: first answer, a replay that writes nothing, another
 * request under the key (409, nothing written).
 */
async function round(
  h: Harness,
  what: string,
  status: number,
  first: () => Promise<LightMyRequestResponse>,
  other: () => Promise<LightMyRequestResponse>,
  rows: () => Promise<number>,
) {
  const before = await rows();
  const a = await first();
  assert.equal(a.statusCode, status, `${what}: ${a.body}`);
  assert.equal(a.headers['idempotent-replayed'], undefined, what);
  const afterFirst = [await rows(), await writes(h)];
  assert.equal(afterFirst[0], before + 1, `${what}: one row`);
  assertReplay(await first(), a, what);
  assertReplay(await first(), a, `${what} (third time)`);
  const o = await other();
  assert.equal(o.statusCode, 409, `${what}, another request: ${o.body}`);
  assert.equal(json(o).code, 'conflict');
  assert.deepEqual([await rows(), await writes(h)], afterFirst, `${what}: nothing written again`);
  return a;
}

test('a retry with the same key replays the first answer of every kind of write and writes nothing; another request under the key is 409', async (t) => {
  const h = await build(t);

  await round(
    h,
    'create a client',
    201,
    () => send(h, '/api/clients', { dni: '30111222', first_name: 'Ana' }, 'client-1'),
    () => send(h, '/api/clients', { dni: '30111223', first_name: 'Ana' }, 'client-1'),
    () => count(h, 'clients'),
  );
  // the same body with its keys in another order is the same request
  const reordered = await send(h, '/api/clients', { first_name: 'Ana', dni: '30111222' }, 'client-1');
  assert.equal(reordered.headers['idempotent-replayed'], 'true');

  await round(
    h,
    'create a plan',
    201,
    () => send(h, '/api/credit-configs', { name: 'Monthly 6', installments_count: 6 }, 'plan-1'),
    () => send(h, '/api/credit-configs', { name: 'Monthly 7', installments_count: 7 }, 'plan-1'),
    () => count(h, 'credit_configs'),
  );

  await round(
    h,
    'create a branch',
    201,
    () => send(h, '/api/branches', { name: 'Centro' }, 'branch-1'),
    () => send(h, '/api/branches', { name: 'Norte' }, 'branch-1'),
    () => count(h, 'branches'),
  );

  const c = await client(h);
  const session = await round(
    h,
    'create an upload link',
    201,
    () => send(h, `/api/clients/${c.id}/upload-sessions`, { expires_in_hours: 48 }, 'link-1'),
    () => send(h, `/api/clients/${c.id}/upload-sessions`, { expires_in_hours: 24 }, 'link-1'),
    () => count(h, 'upload_sessions'),
  );
  // the replay gives the same token, and it works
  const token = json(session).token as string;
  const f = fileForm('via-link.png', png());
  const viaLink = await h.app.inject({
    method: 'POST',
    url: `/upload/${token}`,
    payload: f.payload,
    headers: { 'content-type': f.contentType },
  });
  assert.equal(viaLink.statusCode, 201, viaLink.body);

  const p = await plan(h, { installments_count: 2 });
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000 });
  const wo = await round(
    h,
    'write a credit off',
    200,
    () => send(h, `/api/credits/${d.credit.id}/write-off`, { reason: 'unreachable' }, 'wo-1'),
    () => send(h, `/api/credits/${d.credit.id}/write-off`, { reason: 'another reason' }, 'wo-1'),
    () => count(h, 'credits', h.tenant.businessId, sql`status = 'written_off'`),
  );
  assert.equal(json(wo).status, 'written_off');
  // without the key the same write-off is refused: the replay did not run it again
  assert.equal(
    (await send(h, `/api/credits/${d.credit.id}/write-off`, { reason: 'unreachable' }, null)).statusCode,
    409,
  );

  const d2 = await credit(h, c.id, { credit_config_id: p.id, amount: 500 });
  const cancelled = await send(h, `/api/credits/${d2.credit.id}/cancel`, undefined, 'cancel-1');
  assert.equal(cancelled.statusCode, 200, cancelled.body);
  assertReplay(await send(h, `/api/credits/${d2.credit.id}/cancel`, undefined, 'cancel-1'), cancelled, 'cancel');

  const d3 = await credit(h, c.id, { credit_config_id: p.id, amount: 500 });
  await round(
    h,
    'refinance',
    201,
    () => send(h, `/api/credits/${d3.credit.id}/refinance`, { credit_config_id: p.id }, 'refi-1'),
    () => send(h, `/api/credits/${d3.credit.id}/refinance`, { credit_config_id: p.id, amount: 9000 }, 'refi-1'),
    () => count(h, 'credits'),
  );

  // a key names one operation: the same key on another route is another request
  assert.equal((await send(h, '/api/branches', { name: 'Centro' }, 'client-1')).statusCode, 409);
  // malformed keys are 400 on every route
  for (const bad of ['', 'x'.repeat(256), 'has space', 'ñ'])
    assert.equal((await send(h, '/api/branches', { name: 'Sur' }, bad)).statusCode, 400, JSON.stringify(bad));
});

test('an upload is the same request when its name and bytes are: the retry replays, other bytes or another name is 409, no bytes are left behind', async (t) => {
  const h = await build(t);
  const c = await client(h);
  const files = () => count(h, 'client_files');
  const first = await round(
    h,
    'upload a file',
    201,
    () => sendFile(h, c.id, 'dni.png', png(), 'file-1'),
    () => sendFile(h, c.id, 'dni.png', pdf(), 'file-1'),
    files,
  );
  assert.equal(json(first).file_name, 'dni.png');
  assert.equal((await sendFile(h, c.id, 'other.png', png(), 'file-1')).statusCode, 409);
  // only the first upload's bytes are kept: the duplicates' were removed when they rolled back
  assert.equal(storedFiles(h.config.filesDir).length, 1);
  assert.equal(await files(), 1);

  // a refused upload (not an accepted type) is not stored: the right file under the key goes through
  const refused = await sendFile(h, c.id, 'notes.txt', Buffer.from('plain text'), 'file-2');
  assert.equal(refused.statusCode, 415);
  const ok = await sendFile(h, c.id, 'notes.pdf', pdf(), 'file-2');
  assert.equal(ok.statusCode, 201, ok.body);
  assert.equal(ok.headers['idempotent-replayed'], undefined);
});

test('a refusal is not stored: the corrected request goes through under the same key', async (t) => {
  const h = await build(t);
  await send(h, '/api/clients', { dni: '20999888' }, null);
  const dup = await send(h, '/api/clients', { dni: '20999888' }, 'k');
  assert.equal(dup.statusCode, 409, dup.body);
  // a body the schema refuses never reaches the key either
  assert.equal((await send(h, '/api/clients', { dni: 7 }, 'k')).statusCode, 400);
  const ok = await send(h, '/api/clients', { dni: '20999889' }, 'k');
  assert.equal(ok.statusCode, 201, ok.body);
  assert.equal(ok.headers['idempotent-replayed'], undefined);
  assert.equal(await count(h, 'idempotency_keys'), 1);
});

test('simulate writes nothing: it accepts a key and ignores it', async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 3 });
  const url = `/api/credit-configs/${p.id}/simulate`;
  const a = await send(h, url, { amount: 1000 }, 'sim');
  const b = await send(h, url, { amount: 2000 }, 'sim');
  assert.deepEqual([a.statusCode, b.statusCode], [200, 200]);
  assert.equal(b.headers['idempotent-replayed'], undefined);
  assert.notEqual(a.body, b.body);
  assert.equal(await count(h, 'idempotency_keys'), 0);
  // and a key a write used is no conflict there
  await send(h, '/api/branches', { name: 'x' }, 'used');
  assert.equal((await send(h, url, { amount: 1000 }, 'used')).statusCode, 200);
  // a malformed one is still refused
  assert.equal((await send(h, url, { amount: 1000 }, 'has space')).statusCode, 400);
});

test('a key older than IDEMPOTENCY_TTL_HOURS counts as absent: it may name another request', async (t) => {
  const h = await build(t, { env: { IDEMPOTENCY_TTL_HOURS: '2' } });
  assert.equal(h.config.idempotencyTtlHours, 2);
  const first = await send(h, '/api/branches', { name: 'Centro' }, 'reused');
  assert.equal(first.statusCode, 201);
  // younger than the TTL: still held
  await ageKey(h, 'reused', 1.5);
  assert.equal((await send(h, '/api/branches', { name: 'Norte' }, 'reused')).statusCode, 409);
  assert.equal((await send(h, '/api/branches', { name: 'Centro' }, 'reused')).headers['idempotent-replayed'], 'true');
  // older: another request takes the key over, and is then what the key replays
  await ageKey(h, 'reused', 3);
  const other = await send(h, '/api/branches', { name: 'Norte' }, 'reused');
  assert.equal(other.statusCode, 201, other.body);
  assert.equal(other.headers['idempotent-replayed'], undefined);
  assert.notEqual(json(other).id, json(first).id);
  assertReplay(await send(h, '/api/branches', { name: 'Norte' }, 'reused'), other, 'taken over');
  assert.equal((await send(h, '/api/branches', { name: 'Centro' }, 'reused')).statusCode, 409);
  // the same request after the TTL is a new write too: the key no longer remembers it
  await ageKey(h, 'reused', 3);
  assert.equal((await send(h, '/api/branches', { name: 'Norte' }, 'reused')).headers['idempotent-replayed'], undefined);
  assert.equal(await count(h, 'branches'), 3);
});

test('the sweep deletes expired keys of every business, a batch at a time, and keeps the live ones', async (t) => {
  const h = await build(t);
  const other = await h.newTenant();
  for (let i = 0; i < 5; i++) await send(h, '/api/branches', { name: `b${i}` }, `k${i}`);
  await send(h, '/api/branches', { name: 'theirs' }, 'k0', other.fullKey);
  await send(h, '/api/branches', { name: 'theirs 2' }, 'k1', other.fullKey);
  for (const k of ['k0', 'k1', 'k2']) await ageKey(h, k, 25);
  await ageKey(h, 'k0', 25, other.businessId);
  // the keys still stored, by name (a row holds the key's digest)
  const names = ['k0', 'k1', 'k2', 'k3', 'k4'];
  const keys = async (businessId: string) => {
    const r = await sql<{ key_digest: string }>`SELECT key_digest FROM idempotency_keys
      WHERE business_id = ${businessId}`.execute(h.db.kysely);
    const stored = new Set(r.rows.map((row) => row.key_digest));
    return names.filter((k) => stored.has(keyDigest(k)));
  };

  // batches of 2 (other test files' keys are live: the shared database holds no other expired ones)
  assert.ok(
    (await sweepIdempotencyKeys(h.db.kysely, 24, 2)) >= 4,
    'holds: (await sweepIdempotencyKeys(h.db.kysely, 24, 2)) >= 4',
  );
  assert.deepEqual(await keys(h.tenant.businessId), ['k3', 'k4']);
  assert.deepEqual(await keys(other.businessId), ['k1']);
  // nothing left to do
  assert.equal(await sweepIdempotencyKeys(h.db.kysely, 24, 2), 0);

  // the server's job runs it at start (and hourly)
  await ageKey(h, 'k3', 25);
  const runs: { ok: boolean; entries?: number }[] = [];
  const job = startIdempotencySweep(h.db, 24, silent, (r) => runs.push(r));
  t.after(job.stop);
  await job.firstRun;
  assert.deepEqual(await keys(h.tenant.businessId), ['k4']);
  assert.equal(runs.length, 1);
  assert.equal(runs[0]!.ok, true);
  assert.ok(runs[0]!.entries! >= 1, 'holds: runs[0].entries >= 1');
});

test('keys belong to a business: another one uses the same key for its own request', async (t) => {
  const h = await build(t);
  const other = await h.newTenant();
  const body = { dni: '27444555' };
  const mine = await send(h, '/api/clients', body, 'shared-key');
  const theirs = await send(h, '/api/clients', body, 'shared-key', other.fullKey);
  assert.deepEqual([mine.statusCode, theirs.statusCode], [201, 201]);
  assert.equal(theirs.headers['idempotent-replayed'], undefined);
  assert.notEqual(json(mine).id, json(theirs).id);
  // and each replays its own
  assertReplay(await send(h, '/api/clients', body, 'shared-key', other.fullKey), theirs, 'theirs');
  assertReplay(await send(h, '/api/clients', body, 'shared-key'), mine, 'mine');
});

test('the same write sent at once under one key is written once', {
  skip: testDbKind() !== 'postgres' ? 'needs PostgreSQL' : false,
}, async (t) => {
  const h = await build(t);
  const res = await Promise.all(Array.from({ length: 6 }, () => send(h, '/api/branches', { name: 'Once' }, 'race')));
  assert.deepEqual(
    res.map((r) => r.statusCode),
    [201, 201, 201, 201, 201, 201],
  );
  assert.ok(
    res.every((r) => r.body === res[0]!.body),
    'every r of res: r.body === res[0].body',
  );
  assert.equal(res.filter((r) => r.headers['idempotent-replayed'] === undefined).length, 1);
  assert.equal(await count(h, 'branches'), 1);
  // and a different request racing for the key loses with 409
  const mixed = await Promise.all([
    send(h, '/api/branches', { name: 'A' }, 'race-2'),
    send(h, '/api/branches', { name: 'B' }, 'race-2'),
  ]);
  assert.deepEqual(mixed.map((r) => r.statusCode).sort(), [201, 409]);
  assert.equal(await count(h, 'branches'), 2);
});

test('every POST under /api declares the header in the document, and the 409 of a key used for another request', async (t) => {
  const h = await build(t);
  const doc = json(await h.app.inject({ method: 'GET', url: '/openapi.json' }));
  const posts = Object.entries<any>(doc.paths).filter(([path, item]) => path.startsWith('/api/') && item.post);
  assert.ok(posts.length >= 11, `${posts.length} POST operations`);
  for (const [path, item] of posts) {
    const header = item.post.parameters?.find((p: any) => p.in === 'header' && p.name === 'idempotency-key');
    assert.ok(header, `POST ${path} declares Idempotency-Key`);
    assert.equal(header.required, false);
    assert.equal(header.schema.maxLength, 255);
    // a POST that writes nothing (simulate) ignores the key, so never answers its 409
    if (!path.endsWith('/simulate')) assert.ok(item.post.responses['409'], `POST ${path} declares 409`);
  }
  // the public upload route takes no key
  assert.equal(
    doc.paths['/upload/{token}'].post.parameters?.some((p: any) => p.in === 'header'),
    false,
  );
});

test('IDEMPOTENCY_TTL_HOURS: 24 by default; an unusable value stops start-up with one line', () => {
  assert.equal(loadConfig({}).idempotencyTtlHours, 24);
  assert.equal(loadConfig({ IDEMPOTENCY_TTL_HOURS: '168' }).idempotencyTtlHours, 168);
  for (const bad of ['0', '-1', '1.5', 'a day', '8761'])
    assert.throws(
      () => loadConfig({ IDEMPOTENCY_TTL_HOURS: bad }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError, 'holds: e instanceof ConfigError');
        assert.match(e.message, /^IDEMPOTENCY_TTL_HOURS=/);
        assert.doesNotMatch(e.message, /\n/);
        return true;
      },
    );
});

test('answers holding a secret shown once are replayed too, and the table keeps neither the key nor the secret readable', async (t) => {
  const h = await build(t);
  const admin = await userSession(h, h.tenant.businessId, 'admin');
  const post = (url: string, payload: object, key: string) =>
    h.app.inject({ method: 'POST', url, headers: { ...admin.write, 'idempotency-key': key }, payload });
  const c = json(await h.post('/api/clients', { dni: '30111222' }));
  const email = `inv-${Date.now()}@b.example`;
  // [path, body, another body, the secret in the answer]
  const cases: [string, object, object, (body: any) => string][] = [
    ['/api/keys', { name: 'erp', scope: 'full' }, { name: 'other', scope: 'full' }, (b) => b.key],
    ['/api/users', { email, role: 'employee' }, { email, role: 'viewer' }, (b) => b.set_password_url],
    [`/api/clients/${c.id}/upload-sessions`, {}, { expires_in_hours: 24 }, (b) => b.token],
  ];
  const key = 'a0f4c1e2-7b7e-4d4f-9a51-2f0f2c6a9d11';
  const secrets: string[] = [];
  for (const [url, payload, other, secretOf] of cases) {
    const k = `${key}${url}`;
    const first = await post(url, payload, k);
    assert.equal(first.statusCode, 201, `${url}: ${first.body}`);
    const again = await post(url, payload, k);
    assertReplay(again, first, url);
    const secret = secretOf(json(first));
    assert.ok(typeof secret === 'string' && secret.length > 20, url);
    secrets.push(secret, k);
    // another request under the key is 409
    assert.equal((await post(url, other, k)).statusCode, 409, url);
  }
  // one key and one user were created, not two
  assert.equal(
    json(await h.app.inject({ method: 'GET', url: '/api/keys', headers: admin.read })).filter(
      (k: any) => k.name === 'erp',
    ).length,
    1,
  );
  // the rows: digests and sealed bytes; no secret, no key, not even base64 of them
  const rows = (
    await sql<{ row: string }>`SELECT row_to_json(i)::text AS row FROM idempotency_keys i
      WHERE business_id = ${h.tenant.businessId}`.execute(h.db.kysely)
  ).rows.map((r) => r.row);
  assert.equal(rows.length, 3);
  for (const s of secrets) {
    const forms = [s, Buffer.from(s).toString('base64'), Buffer.from(s).toString('hex')];
    for (const row of rows) for (const f of forms) assert.ok(!row.includes(f), `a stored row shows ${s}`);
  }
});
