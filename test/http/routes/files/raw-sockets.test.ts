// Through a real HTTP server on a loopback port and raw sockets: a client that hangs up in the
// middle of an upload, a link revoked while its upload is in flight, and request paths that no
// HTTP client would normalise first.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { buildApp } from '../../../../src/http/app.ts';
import { loadConfig } from '../../../../src/config.ts';
import { DirectoryStorage } from '../../../../src/storage/directory.ts';
import { sharedTestDb } from '../../../helpers/db.ts';
import { createTenant } from '../../../helpers/app.ts';
import { bigPdf, fileForm, pdf } from '../../../helpers/file-fixtures.ts';
import { storedFiles } from '../../../helpers/files.ts';

/** The real directory storage, telling the test when a write starts and how it ends. */
class ObservedStorage extends DirectoryStorage {
  private waiters: Array<(w: { outcome: Promise<unknown> }) => void> = [];
  /** resolves when the next put starts, with that put's outcome (wrapped: a bare promise would be awaited) */
  nextPut(): Promise<{ outcome: Promise<unknown> }> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  override put(key: string, body: Readable) {
    const outcome = super.put(key, body);
    outcome.catch(() => {});
    this.waiters.shift()?.({ outcome });
    return outcome;
  }
}

async function serve(t: TestContext) {
  const db = await sharedTestDb();
  const dataDir = mkdtempSync(join(tmpdir(), 'lending-files-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ACCRUAL_SCHEDULE: 'off' });
  const storage = new ObservedStorage(config.filesDir);
  const app = await buildApp({ db, config, storage });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const port = (app.server.address() as { port: number }).port;
  const tenant = await createTenant(db);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tenant.fullKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { db, app, port, storage, config, tenant, call };
}

/** Opens a raw connection and sends the request head and the first `sent` bytes of body. */
function startUpload(port: number, path: string, headers: Record<string, string>, body: Buffer, sent: number) {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const head = [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: close',
    `Content-Length: ${body.length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
  socket.write(head);
  socket.write(body.subarray(0, sent));
  const response = new Promise<string>((resolve) => {
    let data = '';
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('close', () => resolve(data));
  });
  return { socket, response };
}

function rawGet(port: number, path: string, key: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
    );
  });
}

// a timeout so that a regression (an upload that never ends) fails instead of hanging the suite
test('a client that aborts in the middle of an upload leaves no row and no bytes', { timeout: 60_000 }, async (t) => {
  const s = await serve(t);
  const client = (await s.call('POST', '/api/clients', { dni: 'abort-1' })).body;
  const form = fileForm('scan.pdf', bigPdf(400_000));
  const started = s.storage.nextPut();
  const up = startUpload(
    s.port,
    `/api/clients/${client.id}/files`,
    { authorization: `Bearer ${s.tenant.fullKey}`, 'content-type': form.contentType },
    form.payload,
    Math.floor(form.payload.length / 2),
  );
  const { outcome } = await started; // the bytes are streaming into FILES_DIR now
  up.socket.destroy();
  await assert.rejects(outcome, 'the write fails instead of storing half a file');
  assert.deepEqual(storedFiles(s.config.filesDir), [], 'no bytes, not even a temporary file');
  assert.deepEqual((await s.call('GET', `/api/clients/${client.id}/files`)).body, []);

  // the server is fine afterwards
  const again = fileForm('scan.pdf', pdf());
  const res = await fetch(`http://127.0.0.1:${s.port}/api/clients/${client.id}/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.tenant.fullKey}`, 'content-type': again.contentType },
    body: again.payload,
  });
  assert.equal(res.status, 201);
  assert.equal(((await res.json()) as { file_name: string }).file_name, 'scan.pdf');
});

test('a link revoked while its upload is in flight: 410, no row, no bytes, not counted', {
  timeout: 60_000,
}, async (t) => {
  const s = await serve(t);
  const client = (await s.call('POST', '/api/clients', { dni: 'race-1' })).body;
  const link = (await s.call('POST', `/api/clients/${client.id}/upload-sessions`, {})).body;
  const form = fileForm('dni.pdf', bigPdf(200_000));
  const started = s.storage.nextPut();
  const half = Math.floor(form.payload.length / 2);
  const up = startUpload(s.port, `/upload/${link.token}`, { 'content-type': form.contentType }, form.payload, half);
  const { outcome } = await started; // past the check at the start of the request
  const revoked = await s.call('DELETE', `/api/clients/${client.id}/upload-sessions/${link.session.id}`);
  assert.equal(revoked.status, 200);
  up.socket.write(form.payload.subarray(half));
  const response = await up.response.catch(() => '');
  await outcome; // the bytes were written in full...
  assert.match(response, /^HTTP\/1\.1 410 /, response.slice(0, 200));
  assert.match(response, /"code":"gone"/);
  // ...and removed again once the link was found revoked
  assert.deepEqual(storedFiles(s.config.filesDir), []);
  assert.deepEqual((await s.call('GET', `/api/clients/${client.id}/files`)).body, []);
  assert.equal((await s.call('GET', `/api/clients/${client.id}/upload-sessions`)).body[0].upload_count, 0);
});

test('raw request paths with dot segments and encoded separators never reach a file', async (t) => {
  const s = await serve(t);
  const client = (await s.call('POST', '/api/clients', { dni: 'raw-1' })).body;
  const form = fileForm('dni.pdf', pdf());
  const res = await fetch(`http://127.0.0.1:${s.port}/api/clients/${client.id}/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.tenant.fullKey}`, 'content-type': form.contentType },
    body: form.payload,
  });
  const file = (await res.json()) as { id: string; file_url: string };
  const ok = await rawGet(s.port, file.file_url, s.tenant.fullKey);
  assert.match(ok, /^HTTP\/1\.1 200 /);

  const c = client.id;
  for (const p of [
    `/api/files/${c}/../${c}/dni.pdf`,
    `/api/files/${c}/./dni.pdf`,
    `/api/files/${c}/..`,
    `/api/files/${c}/../../../../etc/passwd`,
    `/api/files/${c}/..%2F..%2F..%2Fetc%2Fpasswd`,
    `/api/files/${c}/%2e%2e%2f%2e%2e%2fetc%2fpasswd`,
    `/api/files/${c}/%2e%2e`,
    `/api/files/${c}/dni.pdf%00`,
    `/api/files/${c}/dni.pdf%00.png`,
    `/api/files/${c}/..%5cdni.pdf`,
    `/api/files/${c}/${s.tenant.businessId}%2F${c}%2F${file.id}`,
    `/api/files/${c}//dni.pdf`,
    `/api/files/${c}/dni.pdf/`,
  ]) {
    const out = await rawGet(s.port, p, s.tenant.fullKey);
    // dni.pdf/ is the same name (trailing slashes are ignored by the router); everything else names nothing
    if (p.endsWith('dni.pdf/')) assert.match(out, /^HTTP\/1\.1 200 /, p);
    else assert.match(out, /^HTTP\/1\.1 404 /, `${p}: ${out.slice(0, 300)}`);
  }
});
