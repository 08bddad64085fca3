// Every route of this feature: no key 401, bad key 401, read key on writes 403, another
// business's ids 404, malformed ids 404 — and none of those changes anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { build, json, type Harness } from '../../../helpers/app.ts';
import { fileForm, pdf } from '../../../helpers/file-fixtures.ts';
import { newClient, storedFiles, upload } from '../../../helpers/files.ts';

interface Ids {
  client: string;
  file: string;
  fileName: string;
  session: string;
}

interface Route {
  name: string;
  write: boolean;
  /** the ids in its path */
  uses: Array<'client' | 'file' | 'session'>;
  send(h: Harness, ids: Ids, headers: Record<string, string>): Promise<LightMyRequestResponse>;
}

const plain =
  (method: 'GET' | 'DELETE', url: (i: Ids) => string) => (h: Harness, ids: Ids, headers: Record<string, string>) =>
    h.app.inject({ method, url: url(ids), headers });

const ROUTES: Route[] = [
  { name: 'GET files', write: false, uses: ['client'], send: plain('GET', (i) => `/api/clients/${i.client}/files`) },
  {
    name: 'POST files',
    write: true,
    uses: ['client'],
    send: (h, i, headers) => {
      const f = fileForm('auth.pdf', pdf());
      return h.app.inject({
        method: 'POST',
        url: `/api/clients/${i.client}/files`,
        payload: f.payload,
        headers: { ...headers, 'content-type': f.contentType },
      });
    },
  },
  {
    name: 'DELETE file',
    write: true,
    uses: ['client', 'file'],
    send: plain('DELETE', (i) => `/api/clients/${i.client}/files/${i.file}`),
  },
  {
    name: 'GET download',
    write: false,
    uses: ['client'],
    send: plain('GET', (i) => `/api/files/${i.client}/${encodeURIComponent(i.fileName)}`),
  },
  {
    name: 'POST upload-sessions',
    write: true,
    uses: ['client'],
    send: (h, i, headers) =>
      h.app.inject({
        method: 'POST',
        url: `/api/clients/${i.client}/upload-sessions`,
        payload: { expires_in_hours: 5 },
        headers,
      }),
  },
  {
    name: 'GET upload-sessions',
    write: false,
    uses: ['client'],
    send: plain('GET', (i) => `/api/clients/${i.client}/upload-sessions`),
  },
  {
    name: 'DELETE upload-session',
    write: true,
    uses: ['client', 'session'],
    send: plain('DELETE', (i) => `/api/clients/${i.client}/upload-sessions/${i.session}`),
  },
];

function expectError(res: LightMyRequestResponse, status: number, code: string, what: string) {
  assert.equal(res.statusCode, status, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  const b = json(res);
  assert.equal(b.code, code, what);
  assert.equal(typeof b.error, 'string');
}

test('auth, scopes, tenancy and malformed ids on every file and upload-link route', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const f = json(await upload(h, c.id, 'dni.pdf', pdf()));
  const link = json(await h.post(`/api/clients/${c.id}/upload-sessions`, {}));
  const ids: Ids = { client: c.id, file: f.id, fileName: f.file_name, session: link.session.id };
  const b = await h.newTenant();
  const bearer = (k: string) => ({ authorization: `Bearer ${k}` });

  for (const r of ROUTES) {
    expectError(await r.send(h, ids, {}), 401, 'unauthorized', `${r.name} without a key`);
    expectError(
      await r.send(h, ids, bearer('lk_full_' + 'x'.repeat(43))),
      401,
      'unauthorized',
      `${r.name} with an unknown key`,
    );
    expectError(await r.send(h, ids, { 'x-api-key': 'nope' }), 401, 'unauthorized', `${r.name} with a bad X-API-Key`);
    expectError(
      await r.send(h, ids, { authorization: `Basic ${h.tenant.fullKey}` }),
      401,
      'unauthorized',
      `${r.name} with a malformed Authorization`,
    );
    if (r.write)
      expectError(await r.send(h, ids, bearer(h.tenant.readKey)), 403, 'forbidden', `${r.name} with a read key`);
    else assert.equal((await r.send(h, ids, bearer(h.tenant.readKey))).statusCode, 200, `${r.name} with a read key`);

    // another business's key, this business's ids
    expectError(await r.send(h, ids, bearer(b.fullKey)), 404, 'not_found', `${r.name} from another business`);

    // malformed ids, one at a time
    for (const which of r.uses) {
      for (const bad of ['not-a-uuid', '123', `${ids[which]}x`, ids[which].replace(/-/g, '')]) {
        expectError(
          await r.send(h, { ...ids, [which]: bad }, bearer(h.tenant.fullKey)),
          404,
          'not_found',
          `${r.name} with ${which} = ${bad}`,
        );
      }
    }
  }

  // nothing the refused requests tried happened
  const files = json(await h.get(`/api/clients/${c.id}/files`));
  assert.deepEqual(files, [f], 'the file is still there, and no other');
  const sessions = json(await h.get(`/api/clients/${c.id}/upload-sessions`));
  assert.deepEqual(sessions, [link.session], 'the link is the only one, not revoked');
  assert.equal((await h.get(f.file_url)).statusCode, 200);
  assert.equal(storedFiles(h.config.filesDir).length, files.length);
  // and the other business got nothing
  const bClient = await newClient(h, b.fullKey);
  assert.deepEqual(json(await h.get(`/api/clients/${bClient.id}/files`, b.fullKey)), []);
});
