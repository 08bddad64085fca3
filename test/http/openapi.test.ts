// The API reference: /openapi.json walked operation by operation. Every
// operation has a readable, unique operationId, a summary and a described tag; every response a
// description and an example; every request body and required parameter an example; and each
// example is valid against the schema it illustrates, so none can drift from the API: a renamed,
// removed or retyped field fails here (objects are checked closed: no field the schema lacks).
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../helpers/app.ts';
import { makeAjv } from '../../src/http/plugins/validation.ts';
import { compileDeclaredSerializers } from '../../src/http/plugins/serialization.ts';
import { compileDeclaredValidators } from '../../src/http/plugins/validation.ts';
import { ERROR_STATUS } from '../../src/domain/errors.ts';

type Any = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function operations(doc: Any) {
  return Object.entries(doc.paths as Any).flatMap(([path, item]) =>
    Object.entries(item as Any)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, path, op: op as Any })),
  );
}

/** A response, or the shared one it references under components.responses. */
function response(doc: Any, r: Any): Any {
  if (!r.$ref) return r;
  const name = String(r.$ref).replace('#/components/responses/', '');
  assert.ok(doc.components.responses?.[name], `${r.$ref} exists`);
  return doc.components.responses[name];
}

/** The examples of a media type or a parameter: `example`, or the values of `examples`. */
function examplesOf(m: Any): unknown[] {
  if ('example' in m) return [m.example];
  if (m.examples) return Object.values(m.examples as Record<string, { value: unknown }>).map((e) => e.value);
  return [];
}

/**
 * The schema as a closed one: an object schema that does not say otherwise accepts no property it
 * does not name, so an example with a field the API no longer has fails. Component references
 * become ids registered with the validator.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Any = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' && typeof v === 'string') out.$ref = v.replace('#/components/schemas/', 'component:');
    else if (k === 'examples' || k === 'example') out[k] = v;
    else out[k] = closed(v);
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function validator(doc: Any) {
  const ajv = makeAjv({ useDefaults: false, allErrors: true });
  ajv.addFormat('binary', true);
  for (const [name, schema] of Object.entries(doc.components.schemas as Any))
    ajv.addSchema({ ...(closed(schema) as Any), $id: `component:${name}` });
  return (schema: Any, value: unknown) => {
    const check = ajv.compile(closed(schema) as Any);
    return check(value) ? null : ajv.errorsText(check.errors);
  };
}

test('every operation has a unique camelCase operationId, a summary and a described tag; the document names its servers', async (t) => {
  const h = await build(t);
  const doc = json(await h.app.inject({ method: 'GET', url: '/openapi.json' }));
  const ops = operations(doc);
  assert.ok(ops.length >= 36, `${ops.length} operations`);

  const seen = new Map<string, string>();
  const tags = new Map((doc.tags as Any[]).map((tag) => [tag.name, tag.description]));
  const problems: string[] = [];
  for (const { name, op } of ops) {
    const id = op.operationId;
    if (typeof id !== 'string' || !/^[a-z][a-zA-Z0-9]*$/.test(id)) problems.push(`${name}: operationId ${id}`);
    else if (seen.has(id)) problems.push(`${name}: operationId ${id} is also ${seen.get(id)}`);
    else seen.set(id, name);
    if (!op.summary) problems.push(`${name}: no summary`);
    if (!op.tags?.length) problems.push(`${name}: no tag`);
    for (const tag of op.tags ?? []) if (!tags.get(tag)) problems.push(`${name}: tag ${tag} is not described`);
  }
  assert.deepEqual(problems, []);

  // the names a generated client gets for the operations the contract and the guide talk about
  for (const [id, name] of [
    ['getClient', 'GET /api/clients/{id}'],
    ['listClientCredits', 'GET /api/clients/{clientId}/credits'],
    ['listCreditLedger', 'GET /api/credits/{id}/ledger'],
    ['listCreditConfigs', 'GET /api/credit-configs'],
    ['createCreditConfig', 'POST /api/credit-configs'],
    ['updateCreditConfig', 'PUT /api/credit-configs/{id}'],
    ['listAuditLog', 'GET /api/logs'],
    ['listBranches', 'GET /api/branches'],
    ['deleteClientFile', 'DELETE /api/clients/{id}/files/{fileId}'],
    ['revokeUploadSession', 'DELETE /api/clients/{id}/upload-sessions/{sessionId}'],
    ['downloadClientFile', 'GET /api/files/{clientId}/{filename}'],
    ['createClient', 'POST /api/clients'],
    ['createCredit', 'POST /api/clients/{clientId}/credits'],
    ['registerPayment', 'POST /api/credits/{id}/payments'],
  ])
    assert.equal(seen.get(id!), name, id);

  assert.ok(doc.servers?.length, 'servers');
  for (const s of doc.servers) assert.ok(s.url && s.description, JSON.stringify(s));
});

test("the contract's eleven operations carry x-contract as docs/api.md numbers them; no text in the document cites a number it cannot explain", async (t) => {
  const h = await build(t);
  const doc = json(await h.app.inject({ method: 'GET', url: '/openapi.json' }));
  const marked = Object.fromEntries(
    operations(doc)
      .filter(({ op }) => op['x-contract'] !== undefined)
      .map(({ name, op }) => [name, op['x-contract']]),
  );
  // docs/api.md "Endpoints": `| contract N | \`METHOD path\` |`
  const table = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const documented = Object.fromEntries(
    [...table.matchAll(/^\| contract (\d+) \| `(\w+) ([^`]+)` \|/gm)].map((m) => [`${m[2]} ${m[3]}`, Number(m[1])]),
  );
  assert.equal(Object.keys(documented).length, 11, 'docs/api.md numbers eleven contract endpoints');
  assert.deepEqual(marked, documented);
  assert.match(String(doc.info.description), /x-contract/, 'info.description says what x-contract means');

  // a contract number or an issue number (not the version "contract 1.0.0") in a summary or a description: a reader of /openapi.json cannot follow it
  const cited: string[] = [];
  const walk = (v: unknown, at: string) => {
    if (typeof v === 'string' && /\b(contract|issue) \d+\b(?!\.\d)/i.test(v)) cited.push(`${at}: ${v}`);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${at}/${k}`);
  };
  walk(doc, '');
  assert.deepEqual(cited, []);
});

test('every response has a description and an example; every body and required parameter an example', async (t) => {
  const h = await build(t);
  const doc = json(await h.app.inject({ method: 'GET', url: '/openapi.json' }));
  const problems: string[] = [];
  for (const { name, op } of operations(doc)) {
    for (const [status, declared] of Object.entries(op.responses as Any)) {
      const r = response(doc, declared);
      if (!r.description || r.description === 'Default Response') problems.push(`${name} ${status}: no description`);
      for (const [type, media] of Object.entries((r.content ?? {}) as Any))
        if (!examplesOf(media).length) problems.push(`${name} ${status} ${type}: no example`);
      // a 204 (sign-out) has no content by definition
      if (!r.content && status !== '204') problems.push(`${name} ${status}: no content`);
    }
    for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Any))
      if (!examplesOf(media).length) problems.push(`${name} body ${type}: no example`);
    for (const p of (op.parameters ?? []) as Any[])
      if (p.required && !examplesOf(p).length) problems.push(`${name} ${p.in} parameter ${p.name}: no example`);
  }
  assert.deepEqual(problems, []);
});

test("the API's error answers are declared where they happen, each described, with an example of its own status's code", async (t) => {
  const h = await build(t);
  const doc = json(await h.app.inject({ method: 'GET', url: '/openapi.json' }));
  const codes = doc.components.schemas.Error.properties.code;
  const enumerated = (codes.anyOf ?? codes.oneOf ?? []).flatMap((c: Any) => c.enum ?? (c.const ? [c.const] : []));
  assert.deepEqual(enumerated.sort(), Object.keys(ERROR_STATUS).sort(), 'the Error code enum is every code');
  for (const { name, path, op } of operations(doc)) {
    const write = !['get', 'head', 'options'].includes(name.split(' ')[0]!.toLowerCase());
    const expected = path.startsWith('/api/') ? ['401', '404', '429', '500', ...(write ? ['403'] : [])] : ['500'];
    for (const s of expected) assert.ok(op.responses[s], `${name} declares ${s}`);
    for (const [status, declared] of Object.entries(op.responses as Any)) {
      if (Number(status) < 400) continue;
      const media = response(doc, declared).content['application/json'];
      assert.equal(media.schema.$ref, '#/components/schemas/Error', `${name} ${status} is the Error body`);
      for (const e of examplesOf(media) as Any[])
        assert.equal(
          ERROR_STATUS[e.code as keyof typeof ERROR_STATUS],
          Number(status),
          `${name} ${status}: example code ${e.code}`,
        );
    }
  }
});

test('every example is valid against the schema it illustrates', async (t) => {
  const h = await build(t);
  const doc = json(await h.app.inject({ method: 'GET', url: '/openapi.json' }));
  const check = validator(doc);
  const invalid: string[] = [];
  let checked = 0;
  const each = (where: string, schema: Any | undefined, examples: unknown[]) => {
    for (const e of examples) {
      checked++;
      const problem = schema ? check(schema, e) : 'no schema';
      if (problem) invalid.push(`${where}: ${problem}`);
    }
  };
  for (const { name, op } of operations(doc)) {
    for (const [status, declared] of Object.entries(op.responses as Any))
      for (const [type, media] of Object.entries((response(doc, declared).content ?? {}) as Any))
        each(`${name} ${status} ${type}`, media.schema, examplesOf(media));
    for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Any))
      each(`${name} body ${type}`, media.schema, examplesOf(media));
    for (const p of (op.parameters ?? []) as Any[]) each(`${name} ${p.in} ${p.name}`, p.schema, examplesOf(p));
  }
  assert.deepEqual(invalid, []);
  assert.ok(checked > 400, `${checked} examples checked`);

  // the checker refuses what it should: a field the schema lacks, a wrong type, a missing field
  const client = doc.paths['/api/clients/{id}'].get.responses['200'].content['application/json'];
  const detail = examplesOf(client)[0] as Any;
  assert.ok(check(client.schema, { ...detail, extra: 1 }), 'holds: check(client.schema, { ...detail, extra: 1 })');
  assert.ok(
    check(client.schema, { ...detail, client: { ...detail.client, dni: 30123456 } }),
    'holds: check(client.schema, { ...detail, client: { ...detail.client, dni: 30123456 } })',
  );
  const { files: _files, ...withoutFiles } = detail;
  assert.ok(check(client.schema, withoutFiles), 'holds: check(client.schema, withoutFiles)');
});

test('the examples tell the story the API tells: a credit and a payment as the service answers them', async (t) => {
  // the example ids agree with each other (the credit is the client's, the payment the credit's)
  const h = await build(t);
  const doc = json(await h.app.inject({ method: 'GET', url: '/openapi.json' }));
  const ex = (path: string, method: string, status: string) =>
    examplesOf(response(doc, doc.paths[path][method].responses[status]).content['application/json'])[0] as Any;
  const client = ex('/api/clients', 'post', '201');
  const credit = ex('/api/clients/{clientId}/credits', 'post', '201');
  const payment = ex('/api/credits/{id}/payments', 'post', '201');
  assert.equal(credit.credit.client_id, client.id);
  assert.equal(payment.credit.id, credit.credit.id);
  const total = credit.installments.reduce((s: number, i: Any) => s + i.amount, 0);
  assert.equal(total, credit.credit.total);
  const paid = payment.ledgerEntries
    .filter((e: Any) => e.type === 'payment')
    .reduce((s: number, e: Any) => s + e.amount, 0);
  const body = examplesOf(
    doc.paths['/api/credits/{id}/payments'].post.requestBody.content['application/json'],
  )[0] as Any;
  assert.equal(paid, body.amount);
});

// serializers are compiled at a schema's first response (src/http/plugins/serialization.ts): every
// response schema of every route must still compile, as it did when the app compiled them at its start
test('every response schema of every route compiles into a serializer', async (t) => {
  const { app } = await build(t);
  const other = await build(t);
  const compiled = compileDeclaredSerializers(app);
  assert.ok(compiled > 0, `the app declared its response schemas: ${compiled} compiled`);
  assert.equal(compileDeclaredSerializers(app), 0, 'none is left to compile');
  // the serializers are the app's own: compiling one app's leaves another's to compile
  assert.equal(compileDeclaredSerializers(other.app), compiled, 'the other app compiles its own');
});

// validators too are compiled at a schema's first request (src/http/plugins/validation.ts): every
// request schema (body, query, params, headers) of every route must still compile, as it did when
// the app compiled them at its start
test('every request schema of every route compiles into a validator', async (t) => {
  const { app } = await build(t);
  const other = await build(t);
  const compiled = compileDeclaredValidators(app);
  assert.ok(compiled > 0, `the app declared its request schemas: ${compiled} compiled`);
  assert.equal(compileDeclaredValidators(app), 0, 'none is left to compile');
  // the schemas not compiled yet are the app's own: another app still has all of its own
  assert.equal(compileDeclaredValidators(other.app), compiled, 'the other app compiles its own');
});
