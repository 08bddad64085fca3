import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { build, json, type Harness } from '../../../helpers/app.ts';
import { bigPdf, jpeg, pdf, png } from '../../../helpers/file-fixtures.ts';
import { newClient, storedFiles, uploadByLink } from '../../../helpers/files.ts';

const HOUR = 3600_000;

async function createLink(h: Harness, clientId: string, body?: unknown) {
  const res = await h.req({
    method: 'POST',
    url: `/api/clients/${clientId}/upload-sessions`,
    ...(body === undefined ? {} : { payload: body as object }),
  });
  assert.equal(res.statusCode, 201, res.body);
  return json(res) as { session: Record<string, any>; upload_url: string; token: string };
}

test('create an upload link: defaults, token shown once and stored hashed, listed without secrets', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const link = await createLink(h, c.id);
  const s = link.session;
  assert.match(link.token, /^ul_[A-Za-z0-9_-]{43}$/);
  // no PUBLIC_URL: the listen address (HOST, PORT), never the Host header (test/security/upload-link-host.test.ts)
  assert.equal(link.upload_url, `http://127.0.0.1:3000/upload/${link.token}`);
  assert.deepEqual(
    {
      business_id: s.business_id,
      client_id: s.client_id,
      created_by: s.created_by,
      revoked_at: s.revoked_at,
      last_used_at: s.last_used_at,
      upload_count: s.upload_count,
      max_uploads: s.max_uploads,
    },
    {
      business_id: h.tenant.businessId,
      client_id: c.id,
      created_by: `api_key:${h.tenant.fullKeyId}`,
      revoked_at: null,
      last_used_at: null,
      upload_count: 0,
      max_uploads: 20,
    },
  );
  assert.equal(Date.parse(s.expires_at) - Date.parse(s.created_at), 72 * HOUR);
  assert.ok(!('token_hash' in s) && !('token' in s), "holds: !('token_hash' in s) && !('token' in s)");

  const row = await h.db.kysely
    .selectFrom('upload_sessions')
    .select('token_hash')
    .where('id', '=', s.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.token_hash, createHash('sha256').update(link.token).digest('hex'));

  // an empty JSON object and explicit hours work too
  const two = await createLink(h, c.id, {});
  const asNull = await h.req({
    method: 'POST',
    url: `/api/clients/${c.id}/upload-sessions`,
    payload: 'null',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(asNull.statusCode, 201, asNull.body);
  assert.equal(Date.parse(json(asNull).session.expires_at) - Date.parse(json(asNull).session.created_at), 72 * HOUR);
  const max = await createLink(h, c.id, { expires_in_hours: 720 });
  assert.equal(Date.parse(max.session.expires_at) - Date.parse(max.session.created_at), 720 * HOUR);
  const one = await createLink(h, c.id, { expires_in_hours: 1 });
  assert.equal(Date.parse(one.session.expires_at) - Date.parse(one.session.created_at), HOUR);
  assert.notEqual(two.token, link.token);

  const list = await h.get(`/api/clients/${c.id}/upload-sessions`, h.tenant.readKey);
  assert.equal(list.statusCode, 200);
  assert.deepEqual(json(list), [link.session, two.session, json(asNull).session, max.session, one.session]);
  assert.ok(
    !list.body.includes(link.token) && !list.body.includes(row.token_hash),
    'holds: !list.body.includes(link.token) && !list.body.includes(row.token_hash)',
  );

  // the audit log has the session, without the hash
  const audit = await h.db.kysely.selectFrom('audit_log').selectAll().where('record_id', '=', s.id).execute();
  assert.equal(audit.length, 1);
  assert.ok(
    !JSON.stringify(audit[0]!.new_data).includes(row.token_hash),
    'JSON.stringify(audit[0].new_data) does not include row.token_hash',
  );

  for (const bad of [
    { expires_in_hours: 0 },
    { expires_in_hours: 721 },
    { expires_in_hours: -5 },
    { expires_in_hours: 1.5 },
    { expires_in_hours: '24' },
    { expires_in_hours: null },
    { hours: 5 },
    [],
    'x',
    42,
    true,
  ]) {
    const res = await h.req({
      method: 'POST',
      url: `/api/clients/${c.id}/upload-sessions`,
      payload: JSON.stringify(bad),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 400, `${JSON.stringify(bad)}: ${res.body}`);
    assert.equal(json(res).code, 'validation_failed');
  }
  assert.equal(json(await h.get(`/api/clients/${c.id}/upload-sessions`)).length, 5);
});

test('PUBLIC_URL, when set, is the base of upload links', async (t) => {
  const h = await build(t, { env: { PUBLIC_URL: 'https://lend.example.com/' } });
  const c = await newClient(h);
  const link = await createLink(h, c.id);
  assert.equal(link.upload_url, `https://lend.example.com/upload/${link.token}`);
});

test('upload through a link: no API key, counted, audited as the link, in the client read', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const link = await createLink(h, c.id);
  const path = new URL(link.upload_url).pathname;

  const res = await uploadByLink(h, link.token, 'dni frente.jpg', jpeg());
  assert.equal(res.statusCode, 201, res.body);
  const f = json(res);
  assert.equal(f.client_id, c.id);
  assert.equal(f.file_type, 'image/jpeg');
  assert.equal(f.file_name, 'dni frente.jpg');
  const second = await h.app.inject({ method: 'POST', url: path, ...formOf('dni frente.jpg', png()) });
  assert.equal(second.statusCode, 201, second.body);
  assert.equal(json(second).file_name, 'dni frente (1).jpg');
  assert.equal(json(second).file_type, 'image/png');

  const s = json(await h.get(`/api/clients/${c.id}/upload-sessions`))[0];
  assert.equal(s.upload_count, 2);
  assert.ok(
    s.last_used_at && Date.parse(s.last_used_at) >= Date.parse(s.created_at),
    'holds: s.last_used_at && Date.parse(s.last_used_at) >= Date.parse(s.created_at)',
  );

  const detail = json(await h.get(`/api/clients/${c.id}`));
  assert.deepEqual(
    detail.files.map((x: { id: string }) => x.id),
    [f.id, json(second).id],
  );
  const dl = await h.get(f.file_url, h.tenant.readKey);
  assert.ok(dl.rawPayload.equals(jpeg()), 'holds: dl.rawPayload.equals(jpeg())');

  const row = await h.db.kysely.selectFrom('client_files').selectAll().where('id', '=', f.id).executeTakeFirstOrThrow();
  assert.equal(row.upload_session_id, s.id);
  assert.equal(row.created_by, `upload_link:${s.id}`);
  const audit = await h.db.kysely
    .selectFrom('audit_log')
    .select(['table_name', 'action', 'actor'])
    .where('business_id', '=', h.tenant.businessId)
    .where('actor', '=', `upload_link:${s.id}`)
    .orderBy('changed_at')
    .execute();
  assert.deepEqual(audit.map((a) => `${a.table_name} ${a.action}`).sort(), [
    'client_files INSERT',
    'client_files INSERT',
    'upload_sessions UPDATE',
    'upload_sessions UPDATE',
  ]);

  // refused uploads do not count
  assert.equal((await uploadByLink(h, link.token, 'notes.txt', 'plain text')).statusCode, 415);
  assert.equal(json(await h.get(`/api/clients/${c.id}/upload-sessions`))[0].upload_count, 2);
});

function formOf(name: string, data: Buffer) {
  const boundary = 'xxBOUNDARYxx';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

test('a link that expired, was revoked or is used up answers 410 gone and stores nothing', async (t) => {
  const h = await build(t);
  const c = await newClient(h);

  const expired = await createLink(h, c.id, { expires_in_hours: 1 });
  await sql`update upload_sessions set expires_at = now() - interval '1 second' where id = ${expired.session.id}`.execute(
    h.db.kysely,
  );
  const e = await uploadByLink(h, expired.token, 'a.pdf', pdf());
  assert.equal(e.statusCode, 410, e.body);
  assert.equal(json(e).code, 'gone');
  assert.match(json(e).error, /expired/);
  const revokeExpired = await h.del(`/api/clients/${c.id}/upload-sessions/${expired.session.id}`);
  assert.equal(revokeExpired.statusCode, 200);
  assert.ok(json(revokeExpired).revoked_at, 'holds: json(revokeExpired).revoked_at');

  const revoked = await createLink(h, c.id);
  const r1 = await h.del(`/api/clients/${c.id}/upload-sessions/${revoked.session.id}`);
  assert.equal(r1.statusCode, 200, r1.body);
  const first = json(r1);
  assert.equal(first.id, revoked.session.id);
  assert.ok(first.revoked_at, 'first.revoked_at is set');
  const r2 = await h.del(`/api/clients/${c.id}/upload-sessions/${revoked.session.id}`);
  assert.equal(r2.statusCode, 200);
  assert.deepEqual(json(r2), first, 'revoking twice keeps the first revoked_at');
  const r = await uploadByLink(h, revoked.token, 'a.pdf', pdf());
  assert.equal(r.statusCode, 410);
  assert.match(json(r).error, /revoked/);
  const revokeAudit = await h.db.kysely
    .selectFrom('audit_log')
    .select('action')
    .where('record_id', '=', revoked.session.id)
    .execute();
  assert.deepEqual(revokeAudit.map((a) => a.action).sort(), ['INSERT', 'UPDATE']);

  // the default allowance is 20 files
  const full = await createLink(h, c.id);
  for (let i = 0; i < 20; i++) assert.equal((await uploadByLink(h, full.token, `p${i}.pdf`, pdf())).statusCode, 201);
  const u = await uploadByLink(h, full.token, 'one-more.pdf', pdf());
  assert.equal(u.statusCode, 410);
  assert.match(json(u).error, /all the files/);
  const s = json(await h.get(`/api/clients/${c.id}/upload-sessions`)).find(
    (x: { id: string }) => x.id === full.session.id,
  );
  assert.equal(s.upload_count, 20);

  assert.equal(json(await h.get(`/api/clients/${c.id}/files`)).length, 20);
  assert.equal(storedFiles(h.config.filesDir).length, 20);
});

test('unknown or malformed tokens are 404; no API key is needed; limits apply', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const unknown = await uploadByLink(h, `ul_${'A'.repeat(43)}`, 'a.pdf', pdf());
  assert.equal(unknown.statusCode, 404);
  assert.equal(json(unknown).code, 'not_found');
  for (const bad of [
    'nope',
    `ul_${'A'.repeat(42)}`,
    `ul_${'A'.repeat(42)}%2F`,
    '..%2F..%2Fapi%2Fclients',
    `ul_${'A'.repeat(42)}%00`,
  ]) {
    const res = await uploadByLink(h, bad, 'a.pdf', pdf());
    assert.equal(res.statusCode, 404, `${bad}: ${res.body}`);
  }
  // an API key does not change anything for the public route, and is not needed
  const link = await createLink(h, c.id);
  const withKey = await h.req({
    method: 'POST',
    url: `/upload/${link.token}`,
    key: 'garbage',
    ...formOf('x.pdf', pdf()),
  });
  assert.equal(withKey.statusCode, 201, withKey.body);

  // limits and sniffing apply as on the API
  const big = await build(t, { env: { MAX_FILE_BYTES: '5000' } });
  const bc = await newClient(big);
  const blink = await createLink(big, bc.id);
  assert.equal((await uploadByLink(big, blink.token, 'big.pdf', bigPdf(5001))).statusCode, 413);
  assert.deepEqual(storedFiles(big.config.filesDir), []);
  assert.equal(json(await big.get(`/api/clients/${bc.id}/upload-sessions`))[0].upload_count, 0);
});

test('revoke and list: 404 for another client, another business, unknown and malformed ids', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const c2 = await newClient(h);
  const link = await createLink(h, c.id);
  const b = await h.newTenant();
  assert.equal((await h.del(`/api/clients/${c2.id}/upload-sessions/${link.session.id}`)).statusCode, 404);
  assert.equal((await h.del(`/api/clients/${c.id}/upload-sessions/${link.session.id}`, b.fullKey)).statusCode, 404);
  assert.equal((await h.get(`/api/clients/${c.id}/upload-sessions`, b.fullKey)).statusCode, 404);
  assert.equal((await h.del(`/api/clients/${c.id}/upload-sessions/${crypto.randomUUID()}`)).statusCode, 404);
  assert.equal((await h.del(`/api/clients/${c.id}/upload-sessions/not-a-uuid`)).statusCode, 404);
  // still usable: none of that revoked it
  assert.equal((await uploadByLink(h, link.token, 'a.pdf', pdf())).statusCode, 201);
});
