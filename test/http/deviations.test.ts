// Conformance: places where the running service deviates from the published contract, docs/api.md or
// docs/domain.md, found by black-box review. Each test quotes the spec
// line it pins; it failed until the service is fixed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { build, json, type Harness } from '../helpers/app.ts';
import { ERROR_STATUS, type ErrorCode } from '../../src/domain/errors.ts';

async function activeCredit(h: Harness) {
  const plan = json(await h.post('/api/credit-configs', { name: 'three', installments_count: 3 }));
  const client = json(await h.post('/api/clients', { dni: '20000001' }));
  const res = await h.post(`/api/clients/${client.id}/credits`, {
    credit_config_id: plan.id,
    amount: 300,
    start_date: '2026-01-01',
  });
  assert.equal(res.statusCode, 201, res.body);
  return { plan, client, credit: json(res).credit };
}

function assertRefusedNot500(res: { statusCode: number; body: string }, what: string) {
  // docs/api.md: "500 internal | never leaks a stack trace or SQL"; "400 validation_failed | … out-of-range value"
  assert.notEqual(res.statusCode, 500, `${what}: ${res.body}`);
  assert.ok([400, 422].includes(res.statusCode), `${what}: expected 400 or 422, got ${res.statusCode} ${res.body}`);
  const b = JSON.parse(res.body);
  assert.equal(typeof b.error, 'string');
  // 422 carries unprocessable or the code of the domain rule that refused (ERROR_STATUS)
  assert.equal(ERROR_STATUS[b.code as ErrorCode], res.statusCode, `${what}: ${res.body}`);
}

test('fixed deviation (was: POST /api/clients/{id}/credits with start_date 9999-12-31 (schedule past year 9999) answers 500 internal)', async (t) => {
  const h = await build(t);
  const { plan, client } = await activeCredit(h);
  const res = await h.post(`/api/clients/${client.id}/credits`, {
    credit_config_id: plan.id,
    amount: 100,
    start_date: '9999-12-31',
  });
  assertRefusedNot500(res, 'create credit starting 9999-12-31');
  const res2 = await h.post(`/api/clients/${client.id}/credits`, {
    credit_config_id: plan.id,
    amount: 100,
    start_date: '9999-11-01',
  });
  assertRefusedNot500(res2, 'create credit starting 9999-11-01 (3 monthly installments)');
});

test('fixed deviation (was: POST /api/credit-configs/{id}/simulate with start_date 9999-12-31 answers 500 internal)', async (t) => {
  const h = await build(t);
  const plan = json(await h.post('/api/credit-configs', { name: 'one' }));
  assertRefusedNot500(
    await h.post(`/api/credit-configs/${plan.id}/simulate`, { amount: 100, start_date: '9999-12-31' }),
    'simulate 9999-12-31',
  );
});

test('fixed deviation (was: POST /api/credits/{id}/refinance with start_date 9999-12-31 answers 500 internal)', async (t) => {
  const h = await build(t);
  const { plan, credit } = await activeCredit(h);
  assertRefusedNot500(
    await h.post(`/api/credits/${credit.id}/refinance`, { credit_config_id: plan.id, start_date: '9999-12-31' }),
    'refinance 9999-12-31',
  );
  assert.equal(json(await h.get(`/api/credits/${credit.id}`)).credit.status, 'active', 'the old credit is untouched');
});

test('fixed deviation (was: GET /api/reports/exports/{dataset}.csv?from=0000-01-01 answers 200 with the header row, then the body is cut off (must be 400 validation_failed))', async (t) => {
  // docs/api.md: "400 validation_failed | … bad query parameter"; docs/reports.md: "Anything else … → 400",
  // "everything checkable is checked before" the first byte.
  const h = await build(t);
  await activeCredit(h);
  for (const q of ['from=0000-01-01', 'to=0000-12-31', 'from=0000-06-01T00:00:00Z']) {
    let status = -1;
    let body = '';
    try {
      const res = await h.get(`/api/reports/exports/ledger.csv?${q}`);
      status = res.statusCode;
      body = res.body;
    } catch (e) {
      body = `inject failed (the response was cut off): ${String(e)}`;
    }
    assert.equal(status, 400, `${q}: ${status} ${body.slice(0, 200)}`);
    assert.equal(JSON.parse(body).code, 'validation_failed');
  }
});

test('fixed deviation (was: POST /api/credits/{id}/cancel accepts (and acts on) a body with unknown fields (must be 400 validation_failed))', async (t) => {
  // docs/api.md: "400 validation_failed | malformed JSON, wrong JSON type …, unknown body field"
  const h = await build(t);
  const { credit } = await activeCredit(h);
  const res = await h.post(`/api/credits/${credit.id}/cancel`, { reason: 'typo', force: true });
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(json(res).code, 'validation_failed');
  assert.equal(
    json(await h.get(`/api/credits/${credit.id}`)).credit.status,
    'active',
    'a refused request changes nothing',
  );
});

test('fixed deviation (was: OPTIONS with a read key on a contract path answers 404 "no route" (contract: scope read allows GET, HEAD and OPTIONS))', async (t) => {
  // the published contract (docs/api.md), Authentication 3: "Scope read allows only the safe methods GET, HEAD and OPTIONS."
  const h = await build(t);
  for (const url of ['/api/credit-configs', '/api/branches', '/api/logs']) {
    const res = await h.req({ method: 'OPTIONS', url, key: h.tenant.readKey });
    assert.ok([200, 204].includes(res.statusCode), `OPTIONS ${url}: ${res.statusCode} ${res.body}`);
  }
});

test('fixed deviation (was: Branch.address and Branch.phone are null when omitted; the contract types them string (not nullable))', async (t) => {
  // the published contract (docs/api.md): "A field typed nullable may be null." Branch: "address | string", "phone | string".
  const h = await build(t);
  const res = await h.post('/api/branches', { name: 'Sucursal' });
  assert.equal(res.statusCode, 201, res.body);
  const listed = (json(await h.get('/api/branches')) as { id: string; address: unknown; phone: unknown }[]).find(
    (b) => b.id === json(res).id,
  )!;
  assert.equal(typeof listed.address, 'string', JSON.stringify(listed));
  assert.equal(typeof listed.phone, 'string', JSON.stringify(listed));
});

function rawHttp(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.end(request));
    let out = '';
    s.setEncoding('utf8').on('data', (d: string) => (out += d));
    s.on('end', () => resolve(out));
    s.on('close', () => resolve(out));
    s.on('error', reject);
  });
}

test('fixed deviation (was: errors answered by the HTTP layer (431 header too large, 400 unknown method) are not the Error body {error, code})', async (t) => {
  // docs/api.md conventions: "error body | {"error": "<sentence a person can act on>", "code": "<machine code>"}"
  const h = await build(t);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;
  const cases = [
    ['431', `GET /api/clients HTTP/1.1\r\nHost: x\r\nX-API-Key: ${'a'.repeat(100_000)}\r\nConnection: close\r\n\r\n`],
    ['400', `FOO /api/clients HTTP/1.1\r\nHost: x\r\nX-API-Key: ${h.tenant.readKey}\r\nConnection: close\r\n\r\n`],
  ] as const;
  for (const [status, request] of cases) {
    const out = await rawHttp(port, request);
    assert.match(out, new RegExp(`^HTTP/1.1 ${status} `), out.slice(0, 200));
    const body = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4));
    assert.equal(typeof body.error, 'string', out);
    assert.equal(typeof body.code, 'string', `status ${status} body lacks code: ${JSON.stringify(body)}`);
  }
});
