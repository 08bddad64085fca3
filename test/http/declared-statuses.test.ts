// Every status a route answers is declared in /openapi.json: the common ones
// by the kind of route, declared centrally, and each provoked on every operation to check it is
// declared there; and a blank id is a 404 Error body, never the collection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { build, json } from '../helpers/app.ts';
import { head, open, responseOf, serve } from '../helpers/server.ts';

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, any>; requestBody?: unknown }>>;
  components: { responses?: Record<string, any> };
};

/** A declared response, or the shared one (components.responses) it references. */
const resolved = (doc: Doc, r: any) => (r?.$ref ? doc.components.responses?.[String(r.$ref).split('/').pop()!] : r);
const SAFE = ['get', 'head', 'options'];

/** Every operation of the document, with a concrete URL (path parameters filled with fresh uuids). */
function operations(doc: Doc) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      op,
      url: path.replace(/\{token\}/g, `ul_${'a'.repeat(43)}`).replace(/\{[^}]+\}/g, () => randomUUID()),
    })),
  );
}

test('the document declares the common answers of each kind of route as the Error body', async (t) => {
  const h = await build(t);
  const doc = json<Doc>(await h.app.inject({ method: 'GET', url: '/openapi.json' }));
  const ops = operations(doc);
  assert.ok(ops.length >= 30, `${ops.length} operations`);
  for (const { method, path, op } of ops) {
    const expected = ['400', '404', '408', '431', '500', '503'];
    const write = !SAFE.includes(method.toLowerCase());
    if (write) expected.push('413', '415');
    if (path.startsWith('/api/')) expected.push('401', '429', ...(write ? ['403'] : []));
    for (const s of expected) {
      assert.ok(op.responses[s], `${method} ${path} declares ${s}`);
      assert.equal(
        resolved(doc, op.responses[s]).content?.['application/json']?.schema?.$ref,
        '#/components/schemas/Error',
      );
    }
  }
  // what a route declares itself stays: its own 409/410/422 and the 503 of /readyz
  const upload = doc.paths['/upload/{token}']!.post!.responses;
  assert.ok(upload['410'] && upload['409'], "holds: upload['410'] && upload['409']");
  assert.ok(
    doc.paths['/api/clients/{clientId}/credits']!.post!.responses['422'],
    "holds: doc.paths['/api/clients/{clientId}/credits'].post.responses['422']",
  );
});

test('on every operation: no key, a read key, an unknown id, a text body, a too large body and a trailing slash answer declared statuses', async (t) => {
  const h = await build(t, { env: { RATE_LIMIT: '0' } });
  const doc = json<Doc>(await h.app.inject({ method: 'GET', url: '/openapi.json' }));
  const undeclared: string[] = [];
  const big = JSON.stringify({ name: 'x'.repeat(1_200_000) });
  for (const { method, path, op, url } of operations(doc)) {
    const write = !SAFE.includes(method.toLowerCase());
    const tries: [string, Parameters<typeof h.req>[0]][] = [
      ['no key', { method: method as 'GET', url, key: null }],
      ['a read key', { method: method as 'GET', url, key: h.tenant.readKey }],
      ['unknown ids', { method: method as 'GET', url }],
      ['a trailing slash', { method: method as 'GET', url: `${url}/` }],
    ];
    if (write)
      tries.push(
        ['a text body', { method: method as 'POST', url, payload: 'x', headers: { 'content-type': 'text/plain' } }],
        [
          'a body over the limit',
          { method: method as 'POST', url, payload: big, headers: { 'content-type': 'application/json' } },
        ],
      );
    for (const [what, req] of tries) {
      const res = await h.req(req);
      if (!op.responses[String(res.statusCode)]) undeclared.push(`${method} ${path} with ${what}: ${res.statusCode}`);
      if (res.statusCode >= 400 && method !== 'HEAD')
        assert.ok(json(res).code, `${method} ${path} with ${what}: Error body`);
    }
  }
  assert.deepEqual(undeclared, []);
});

test('a blank id (%20, %09, or trimmed away to a trailing slash) is 404 like a malformed id, never the collection', async (t) => {
  const h = await build(t);
  const c = json(await h.post('/api/clients', { dni: `${Date.now()}`.slice(-8), first_name: 'Ana' }));
  for (const blank of ['%20', '%09', '%20%20', '%0A', '%20/']) {
    for (const base of ['/api/clients', '/api/credits', '/api/credit-configs', '/api/branches', '/api/files']) {
      const res = await h.get(`${base}/${blank}`);
      assert.equal(res.statusCode, 404, `${base}/${blank}: ${res.body.slice(0, 200)}`);
      assert.equal(json(res).code, 'not_found');
    }
  }
  for (const collection of [
    '/api/clients/',
    '/api/credits/',
    '/api/credit-configs/',
    '/api/branches/',
    '/api/installments/',
    '/api/logs/',
    '/api/reports/summary/',
    '/api/clients/?limit=1',
    `/api/clients/${c.id}/credits/`,
  ]) {
    const res = await h.get(collection);
    assert.equal(res.statusCode, 404, `${collection}: ${res.body.slice(0, 200)}`);
    assert.equal(json(res).code, 'not_found');
    assert.equal((await h.req({ method: 'OPTIONS', url: collection })).statusCode, 404, `OPTIONS ${collection}`);
  }
  // under /api the key is asked for first, as for any path
  assert.equal((await h.get('/api/clients/', null)).statusCode, 401);
  // a trailing slash after an id still names the record
  assert.equal((await h.get(`/api/clients/${c.id}/`)).statusCode, 200);
  assert.equal((await h.get('/api/clients')).statusCode, 200);
  assert.match(String((await h.req({ method: 'OPTIONS', url: `/api/clients/${c.id}/` })).headers.allow), /GET/);

  // over the wire, a space in the request line (what a client that does not encode sends)
  const s = await serve(t);
  for (const target of ['/api/clients/ ', '/api/clients/%20', '/api/clients/%09']) {
    const sock = await open(s.port);
    const out = responseOf(sock);
    sock.write(head('GET', target, { authorization: `Bearer ${s.tenant.fullKey}`, connection: 'close' }));
    const r = await out;
    assert.equal(r.status, 404, `GET ${JSON.stringify(target)}: ${r.body.slice(0, 200)}`);
    assert.equal(JSON.parse(r.body).code, 'not_found');
  }
});
