import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { build, json } from '../../../helpers/app.ts';
import { bigPdf, jpeg, multipart, pdf, png, webp } from '../../../helpers/file-fixtures.ts';
import { newClient, storedFiles, upload, uploadParts } from '../../../helpers/files.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test('upload each accepted type, download it byte for byte, see it in the client read and the list', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const cases = [
    { name: 'photo.png', data: png(), type: 'image/png' },
    { name: 'scan.jpg', data: jpeg(), type: 'image/jpeg' },
    { name: 'contract.pdf', data: pdf(), type: 'application/pdf' },
    { name: 'selfie.webp', data: webp(), type: 'image/webp' },
  ];
  const created = [];
  for (const k of cases) {
    const res = await upload(h, c.id, k.name, k.data, { contentType: 'application/octet-stream' });
    assert.equal(res.statusCode, 201, res.body);
    const f = json(res);
    assert.match(f.id, UUID);
    assert.deepEqual(
      {
        client_id: f.client_id,
        file_name: f.file_name,
        file_type: f.file_type,
        file_size: f.file_size,
        file_url: f.file_url,
      },
      {
        client_id: c.id,
        file_name: k.name,
        file_type: k.type,
        file_size: k.data.length,
        file_url: `/api/files/${c.id}/${k.name}`,
      },
    );
    assert.ok(!Number.isNaN(Date.parse(f.created_at)), 'holds: !Number.isNaN(Date.parse(f.created_at))');
    created.push(f);

    const dl = await h.get(f.file_url, h.tenant.readKey);
    assert.equal(dl.statusCode, 200);
    assert.ok(dl.rawPayload.equals(k.data), 'the same bytes come back');
    assert.equal(dl.headers['content-type'], k.type);
    assert.equal(dl.headers['content-length'], String(k.data.length));
    assert.equal(dl.headers['content-disposition'], `attachment; filename*=UTF-8''${k.name}`);
    assert.equal(dl.headers['x-content-type-options'], 'nosniff');
  }

  const head = await h.req({ method: 'HEAD', url: created[0].file_url, key: h.tenant.readKey });
  assert.equal(head.statusCode, 200);
  assert.equal(head.headers['content-length'], String(cases[0]!.data.length));

  const detail = json(await h.get(`/api/clients/${c.id}`, h.tenant.readKey));
  assert.deepEqual(detail.files, created);
  const list = await h.get(`/api/clients/${c.id}/files`, h.tenant.readKey);
  assert.equal(list.statusCode, 200);
  assert.deepEqual(json(list), created);

  // the bytes are stored under business/client/file ids, nothing of the uploaded names
  const stored = storedFiles(h.config.filesDir);
  assert.deepEqual(stored, created.map((f) => `${h.tenant.businessId}/${c.id}/${f.id}`).sort());

  // audited by the database, as the key, without the storage path
  const audit = await h.db.kysely
    .selectFrom('audit_log')
    .selectAll()
    .where('business_id', '=', h.tenant.businessId)
    .where('table_name', '=', 'client_files')
    .execute();
  assert.equal(audit.length, 4);
  for (const a of audit) {
    assert.equal(a.action, 'INSERT');
    assert.equal(a.actor, `api_key:${h.tenant.fullKeyId}`);
    assert.ok(!('storage_key' in (a.new_data as object)), "holds: !('storage_key' in (a.new_data as object))");
  }
});

test('the type comes from the content, never from the name or the claimed type', async (t) => {
  const h = await build(t);
  const c = await newClient(h);

  const disguised = await upload(h, c.id, 'dni.pdf', png(), { contentType: 'application/pdf' });
  assert.equal(disguised.statusCode, 201, disguised.body);
  assert.equal(json(disguised).file_type, 'image/png');
  assert.equal(json(disguised).file_name, 'dni.pdf');
  const dl = await h.get(json(disguised).file_url);
  assert.equal(dl.headers['content-type'], 'image/png');

  const refused = [
    ['notes.jpg', Buffer.from('just some text, not a picture at all\n'.repeat(10)), 'image/jpeg'],
    ['page.pdf', Buffer.from('<html><script>alert(1)</script></html>'), 'application/pdf'],
    ['empty.png', Buffer.alloc(0), 'image/png'],
    ['archive.pdf', Buffer.from([0x50, 0x4b, 0x03, 0x04, ...Buffer.alloc(100)]), 'application/pdf'], // a ZIP
    ['anim.gif', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'image/gif'],
  ] as const;
  for (const [name, data, claimed] of refused) {
    const res = await upload(h, c.id, name, data, { contentType: claimed });
    assert.equal(res.statusCode, 415, `${name}: ${res.body}`);
    assert.equal(json(res).code, 'unsupported_media_type');
  }
  assert.equal(json(await h.get(`/api/clients/${c.id}/files`)).length, 1);
  assert.equal(storedFiles(h.config.filesDir).length, 1, 'a refused upload leaves no bytes');
});

test('names are made safe and unique per client; every file_url downloads its file', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const other = await newClient(h);
  const names: Array<[string, string]> = [
    ['dni.pdf', 'dni.pdf'],
    ['dni.pdf', 'dni (1).pdf'],
    ['dni.pdf', 'dni (2).pdf'],
    ['C:\\Users\\ana\\scans\\recibo.pdf', 'recibo.pdf'],
    ['a\u0000b\u0007c\u202Egpj.pdf', 'abcgpj.pdf'],
    ['  spaced   out .pdf  ', 'spaced out.pdf'],
    ['..', 'file.pdf'],
    ['', 'file (1).pdf'],
    ['Señora José Ñandú.pdf', 'Señora José Ñandú.pdf'],
    ['50% #1 ?&=+;,.pdf', '50% #1 ?&=+;,.pdf'],
    ['a%2Fb%2e%2e.pdf', 'a%2Fb%2e%2e.pdf'],
    ["it's (final) *.pdf", "it's (final) *.pdf"],
    ['x'.repeat(300) + '.pdf', 'x'.repeat(251) + '.pdf'],
    ['x'.repeat(300) + '.pdf', 'x'.repeat(247) + ' (1).pdf'],
  ];
  for (const [given, expected] of names) {
    const res = await upload(h, c.id, given, pdf());
    assert.equal(res.statusCode, 201, `${given}: ${res.body}`);
    const f = json(res);
    assert.equal(f.file_name, expected, `uploaded as ${JSON.stringify(given)}`);
    assert.equal(f.file_url, `/api/files/${c.id}/${encodeURIComponent(expected)}`);
    const dl = await h.get(f.file_url);
    assert.equal(dl.statusCode, 200, `download of ${JSON.stringify(expected)}: ${dl.body}`);
    assert.ok(dl.rawPayload.equals(pdf()), 'holds: dl.rawPayload.equals(pdf())');
    assert.ok(
      String(dl.headers['content-disposition']).startsWith("attachment; filename*=UTF-8''"),
      'the download is an attachment with a UTF-8 filename*',
    );
    assert.equal(
      decodeURIComponent(String(dl.headers['content-disposition']).slice("attachment; filename*=UTF-8''".length)),
      expected,
    );
  }
  // another client may use the same name
  const same = await upload(h, other.id, 'dni.pdf', pdf());
  assert.equal(json(same).file_name, 'dni.pdf');

  // a path in the name (busboy's default keeps only the last segment, and so do we)
  const traversal = await uploadParts(h, `/api/clients/${c.id}/files`, [
    { name: 'file', filename: '../../../etc/passwd.pdf', data: pdf(), contentType: 'application/pdf' },
  ]);
  assert.equal(traversal.statusCode, 201);
  assert.equal(json(traversal).file_name, 'passwd.pdf');
  for (const f of storedFiles(h.config.filesDir))
    assert.match(f, new RegExp(`^${h.tenant.businessId}/[0-9a-f-]{36}/[0-9a-f-]{36}$`));
});

test('downloads: 404 for other clients, other businesses, unknown names and every traversal attempt', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const c2 = await newClient(h);
  const f = json(await upload(h, c.id, 'dni.pdf', pdf()));
  const nested = json(await upload(h, c.id, 'a..b.pdf', pdf()));
  assert.equal(nested.file_name, 'a..b.pdf');
  const b = await h.newTenant();

  const paths = [
    `/api/files/${c2.id}/dni.pdf`,
    `/api/files/${c.id}/nope.pdf`,
    `/api/files/${c.id}/DNI.pdf`,
    `/api/files/${c.id}/dni.pdf%00`,
    `/api/files/${c.id}/%00`,
    `/api/files/${c.id}/..`,
    `/api/files/${c.id}/.`,
    `/api/files/${c.id}/%2e%2e`,
    `/api/files/${c.id}/%2E%2E%2Fdni.pdf`,
    `/api/files/${c.id}/..%2fdni.pdf`,
    `/api/files/${c.id}/..%2F..%2F..%2Fetc%2Fpasswd`,
    `/api/files/${c.id}/..%5c..%5cetc%5cpasswd`,
    `/api/files/${c.id}/%252e%252e%252fdni.pdf`,
    `/api/files/${c.id}/../${c2.id}/dni.pdf`, // a client normalises it: another client's (absent) file
    `/api/files/${c.id}/../../../etc/passwd`,
    `/api/files/${c.id}/%2e%2e/%2e%2e/etc/passwd`,
    `/api/files/${c.id}%2fdni.pdf`,
    `/api/files/${c.id}/${f.id}`,
    `/api/files/${c.id}/${h.tenant.businessId}%2F${c.id}%2F${f.id}`,
    `/api/files/not-a-uuid/dni.pdf`,
    `/api/files/${c.id}/a%2F..%2Fb.pdf`,
    `/api/files/${c.id}/${'x'.repeat(600)}`,
    `/api/files/${c.id}/%E0%A4%A`,
  ];
  for (const p of paths) {
    const res = await h.get(p);
    assert.equal(res.statusCode, 404, `${p}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    assert.equal(json(res).code, 'not_found', p);
  }
  // another business, with a valid key of its own
  const foreign = await h.get(f.file_url, b.fullKey);
  assert.equal(foreign.statusCode, 404);
  // and the real names still work
  assert.equal((await h.get(f.file_url)).statusCode, 200);
  assert.equal((await h.get(nested.file_url)).statusCode, 200);
});

test('a file over MAX_FILE_BYTES is 413 while streaming: no row, no bytes', async (t) => {
  const h = await build(t, { env: { MAX_FILE_BYTES: '20000' } });
  const c = await newClient(h);
  const exact = await upload(h, c.id, 'exact.pdf', bigPdf(20000));
  assert.equal(exact.statusCode, 201, exact.body);
  assert.equal(json(exact).file_size, 20000);

  for (const size of [20001, 500_000]) {
    const res = await upload(h, c.id, 'big.pdf', bigPdf(size));
    assert.equal(res.statusCode, 413, res.body);
    assert.equal(json(res).code, 'payload_too_large');
  }
  // smaller than what the type sniffer reads
  const tiny = await build(t, { env: { MAX_FILE_BYTES: '100' } });
  const tc = await newClient(tiny);
  const res = await upload(tiny, tc.id, 'big.pdf', bigPdf(2000));
  assert.equal(res.statusCode, 413, res.body);
  assert.equal(json(await tiny.get(`/api/clients/${tc.id}/files`)).length, 0);
  assert.deepEqual(storedFiles(tiny.config.filesDir), []);

  assert.deepEqual(
    json(await h.get(`/api/clients/${c.id}/files`)).map((f: { file_name: string }) => f.file_name),
    ['exact.pdf'],
  );
  assert.deepEqual(storedFiles(h.config.filesDir), [`${h.tenant.businessId}/${c.id}/${json(exact).id}`]);
});

test('the default limit is 10 MiB', async (t) => {
  const h = await build(t);
  assert.equal(h.config.maxFileBytes, 10 * 1024 * 1024);
  const c = await newClient(h);
  const res = await upload(h, c.id, 'big.pdf', bigPdf(10 * 1024 * 1024 + 1));
  assert.equal(res.statusCode, 413);
  assert.deepEqual(storedFiles(h.config.filesDir), []);
  assert.equal((await upload(h, c.id, 'ok.pdf', bigPdf(10 * 1024 * 1024))).statusCode, 201);
});

test('malformed uploads are 4xx and change nothing; JSON routes keep refusing other bodies', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const url = `/api/clients/${c.id}/files`;
  const cut = multipart([{ name: 'file', filename: 'a.pdf', data: pdf() }]);
  const cases: Array<[string, Promise<import('fastify').LightMyRequestResponse>, number]> = [
    ['json body', h.post(url, { file: 'x' }), 415],
    ['no body', h.req({ method: 'POST', url }), 415],
    ['wrong field', uploadParts(h, url, [{ name: 'document', filename: 'a.pdf', data: pdf() }]), 400],
    ['only fields', uploadParts(h, url, [{ name: 'file', data: 'not a file part' }]), 400],
    [
      'no boundary',
      h.req({ method: 'POST', url, payload: pdf(), headers: { 'content-type': 'multipart/form-data' } }),
      400,
    ],
    [
      'truncated',
      h.req({
        method: 'POST',
        url,
        payload: cut.payload.subarray(0, 120),
        headers: { 'content-type': cut.contentType },
      }),
      400,
    ],
  ];
  for (const [what, p, status] of cases) {
    const res = await p;
    assert.equal(res.statusCode, status, `${what}: ${res.body}`);
    assert.equal(typeof json(res).error, 'string');
  }
  // fields before the file are fine; a second file is ignored
  const extra = await uploadParts(h, url, [
    { name: 'note', data: 'hello' },
    { name: 'file', filename: 'one.pdf', data: pdf() },
    { name: 'file', filename: 'two.png', data: png() },
  ]);
  assert.equal(extra.statusCode, 201, extra.body);
  assert.equal(json(extra).file_name, 'one.pdf');
  assert.equal(json(await h.get(url)).length, 1);
  assert.equal(storedFiles(h.config.filesDir).length, 1);

  // multipart is parsed only by the upload routes
  const mp = multipart([{ name: 'dni', data: '123' }]);
  const asClient = await h.req({
    method: 'POST',
    url: '/api/clients',
    payload: mp.payload,
    headers: { 'content-type': mp.contentType },
  });
  assert.equal(asClient.statusCode, 415, asClient.body);
  const coerced = await h.post(`/api/clients/${c.id}/upload-sessions`, { expires_in_hours: '5' });
  assert.equal(coerced.statusCode, 400);
  assert.equal(json(coerced).code, 'validation_failed');
});

test('delete: 200 with the record, row and bytes gone, audited; a second delete is 404', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const c2 = await newClient(h);
  const keep = json(await upload(h, c.id, 'keep.png', png()));
  const f = json(await upload(h, c.id, 'dni.pdf', pdf()));
  assert.equal(storedFiles(h.config.filesDir).length, 2);

  // through another client of the same business: nothing
  assert.equal((await h.del(`/api/clients/${c2.id}/files/${f.id}`)).statusCode, 404);

  const res = await h.del(`/api/clients/${c.id}/files/${f.id}`);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(json(res), f);
  assert.equal((await h.get(f.file_url)).statusCode, 404);
  assert.deepEqual(json(await h.get(`/api/clients/${c.id}/files`)), [keep]);
  assert.deepEqual(storedFiles(h.config.filesDir), [`${h.tenant.businessId}/${c.id}/${keep.id}`]);

  const again = await h.del(`/api/clients/${c.id}/files/${f.id}`);
  assert.equal(again.statusCode, 404);
  assert.equal(json(again).code, 'not_found');

  const audit = await h.db.kysely
    .selectFrom('audit_log')
    .selectAll()
    .where('business_id', '=', h.tenant.businessId)
    .where('record_id', '=', f.id)
    .orderBy('changed_at')
    .execute();
  assert.deepEqual(
    audit.map((a) => a.action),
    ['INSERT', 'DELETE'],
  );
  assert.equal(audit[1]!.actor, `api_key:${h.tenant.fullKeyId}`);
  assert.equal(audit[1]!.new_data, null);
  assert.equal((audit[1]!.old_data as { file_name: string }).file_name, 'dni.pdf');

  // the name is free again
  assert.equal(json(await upload(h, c.id, 'dni.pdf', pdf())).file_name, 'dni.pdf');
});

test('concurrent uploads of one name all get distinct names', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const results = await Promise.all(Array.from({ length: 12 }, () => upload(h, c.id, 'same.pdf', pdf())));
  for (const r of results) assert.equal(r.statusCode, 201, r.body);
  const names = results.map((r) => json(r).file_name).sort();
  assert.deepEqual(names, ['same.pdf', ...Array.from({ length: 11 }, (_, i) => `same (${i + 1}).pdf`)].sort());
  assert.equal(storedFiles(h.config.filesDir).length, 12);
  const rows = await sql<{
    n: number;
  }>`select count(*)::int as n from client_files where business_id = ${h.tenant.businessId}`.execute(h.db.kysely);
  assert.equal(rows.rows[0]!.n, 12);
});
