// Operations endpoints (no API key): /healthz, /readyz, /openapi.json (valid OpenAPI 3.1 listing
// every route the app serves), /docs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { build, json } from '../helpers/app.ts';
import { openTestDb } from '../helpers/db.ts';
import { buildApp } from '../../src/http/app.ts';
import { loadConfig } from '../../src/config.ts';
import { DirectoryStorage } from '../../src/storage/directory.ts';
import { normalizePath, routerRoutes } from '../helpers/security.ts';

test('/healthz and /readyz answer without a key', async (t) => {
  const h = await build(t);
  const health = await h.app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(health.statusCode, 200);
  assert.deepEqual(json(health), { status: 'ok' });
  const ready = await h.app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(ready.statusCode, 200);
  assert.deepEqual(json(ready), { status: 'ready' });
  assert.equal(ready.headers['x-content-type-options'], 'nosniff');
});

test('/readyz is 503 in the Error body when the database does not answer; /healthz stays 200', async (t) => {
  const db = await openTestDb();
  const config = loadConfig({ DATA_DIR: '/nonexistent-lending-test', LOG_LEVEL: 'silent', ACCRUAL_SCHEDULE: 'off' });
  const app = await buildApp({ db, config, storage: new DirectoryStorage(config.filesDir) });
  t.after(() => app.close());
  await app.ready();
  assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  await db.close();
  const res = await app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(json(res).code, 'unavailable');
  assert.equal(typeof json(res).error, 'string');
  assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
});

test('/openapi.json is a valid OpenAPI 3.1 document of every route, with both key forms', async (t) => {
  const h = await build(t);
  const res = await h.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /application\/json/);
  const doc = json(res);
  assert.equal(doc.openapi, '3.1.0');
  // the API's version is the package's (test/http/openapi-headers.test.ts); 1.x keeps the contract
  assert.match(doc.info.version, /^1\.\d+\.\d+$/);

  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  assert.ok(result.valid, `not valid OpenAPI: ${String(JSON.stringify(result.errors)).slice(0, 2000)}`);
  assert.equal(validator.version, '3.1');

  // every route the router serves is documented, except the document, the docs page and the
  // set-password page, and the staff console's page and files (HTML and scripts for a browser; the
  // calls they make are documented)
  // and the generic OPTIONS answer (it lists a path's methods: every path has it)
  const documented = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(item)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method))
        documented.add(`${method.toUpperCase()} ${normalizePath(path)}`);
    }
  }
  const served = [...routerRoutes(h.app)].filter(
    (r) =>
      !r.startsWith('HEAD ') &&
      !r.startsWith('OPTIONS ') &&
      !/ \/(docs|openapi\.json|set-password$|$|app(\/?\*)?$)/.test(r),
  );
  assert.ok(served.length >= 15, `the router listing is read (${served.length} routes)`);
  assert.deepEqual(
    served.filter((r) => !documented.has(r)),
    [],
    'served but not in /openapi.json',
  );
  for (const r of [
    'GET /healthz',
    'GET /readyz',
    'GET /api/clients/{}',
    'GET /api/logs',
    'PUT /api/credit-configs/{}',
    'GET /api/branches',
  ]) {
    assert.ok(documented.has(r), r);
  }

  // both header forms of the key are declared, and the session cookie; API routes answer the Error body
  assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['apiKey', 'bearer', 'session']);
  assert.equal(doc.components.securitySchemes.apiKey.name, 'X-API-Key');
  assert.equal(doc.components.securitySchemes.bearer.scheme, 'bearer');
  assert.ok(doc.components.schemas.Error, 'the Error schema is a component');
  for (const name of [
    'Client',
    'ClientDetail',
    'Credit',
    'Installment',
    'LedgerEntry',
    'ClientFile',
    'CreditConfig',
    'AuditLogEntry',
    'Branch',
    'UploadSession',
  ]) {
    assert.ok(doc.components.schemas[name], `component ${name}`);
  }
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    if (!path.startsWith('/api/')) continue;
    for (const [method, op] of Object.entries(item)) {
      const codes = Object.keys(op.responses ?? {});
      assert.ok(
        codes.some((c) => c.startsWith('2')),
        `${method} ${path} declares its success`,
      );
      assert.ok(codes.includes('401'), `${method} ${path} declares 401`);
    }
  }
});

test('/docs renders the document', async (t) => {
  const h = await build(t);
  let res = await h.app.inject({ method: 'GET', url: '/docs' });
  if (res.statusCode >= 300 && res.statusCode < 400)
    res = await h.app.inject({ method: 'GET', url: String(res.headers.location) });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /text\/html/);
  assert.match(res.body, /swagger|openapi/i);
  const docJson = await h.app.inject({ method: 'GET', url: '/docs/json' });
  assert.equal(docJson.statusCode, 200);
  assert.equal(json(docJson).openapi, '3.1.0');
});
