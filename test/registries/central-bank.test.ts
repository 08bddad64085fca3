// Verifications against the central bank's debtor registry (docs/verification.md), through the
// real app against a local server answering in the registry's documented format: found, not
// found, malformed, slow, 429 and 5xx (502 with Retry-After passed on, nothing stored), the TTL
// cache and ?refresh=true, a client without a cuit, another business's client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { build, json, settableClock } from '../helpers/app.ts';
import { centralBank, clientWith, newCuit } from './helpers.ts';

const FOUND = {
  kind: 'found' as const,
  name: 'GARCIA ANA MARIA',
  current: [
    {
      periodo: '202512',
      entidades: [
        { entidad: 'BANCO DE LA NACION ARGENTINA', situacion: 1, monto: 150.5, diasAtrasoPago: 0 },
        { entidad: 'TARJETA NARANJA S.A.U.', situacion: 3, monto: 262, diasAtrasoPago: 95, refinanciaciones: true },
      ],
    },
  ],
  history: [
    { periodo: '202510', entidades: [{ entidad: 'BANCO DE LA NACION ARGENTINA', situacion: 1, monto: 100 }] },
    {
      periodo: '202512',
      entidades: [
        { entidad: 'BANCO DE LA NACION ARGENTINA', situacion: 1, monto: 150.5 },
        { entidad: 'TARJETA NARANJA S.A.U.', situacion: 3, monto: 262 },
      ],
    },
    { periodo: '202511', entidades: [] },
  ],
  checks: [
    { causal: 'SIN FONDOS SUFICIENTES', entidad: 44, nroCheque: 123, monto: 50000, fechaPago: null },
    { causal: 'SIN FONDOS SUFICIENTES', entidad: 44, nroCheque: 124, monto: 1250.75, fechaPago: '2025-11-02' },
  ],
};

const verify = (id: string, source = 'central_bank', query = '') => ({
  method: 'POST' as const,
  url: `/api/clients/${id}/verifications${query}`,
  payload: { source },
});

test('central bank: found, summarised in pesos, stored with the raw answers; audited and announced', async (t) => {
  const bcra = await centralBank(t);
  const h = await build(t, { env: { BCRA_API_URL: bcra.url } });
  const cuit = newCuit();
  bcra.scenarios.set(cuit, FOUND);
  const client = await clientWith(h, cuit);

  const res = await h.req(verify(client.id));
  assert.equal(res.statusCode, 201, res.body);
  const v = json(res);
  assert.equal(v.client_id, client.id);
  assert.equal(v.source, 'central_bank');
  assert.equal(v.cuit, cuit);
  assert.equal(v.status, 'found');
  assert.equal(v.created_by, `api_key:${h.tenant.fullKeyId}`);
  assert.deepEqual(v.summary, {
    name: 'GARCIA ANA MARIA',
    period: '2025-12',
    worst_situation: 3,
    total_debt: 412500,
    entities: [
      {
        name: 'BANCO DE LA NACION ARGENTINA',
        situation: 1,
        debt: 150500,
        days_overdue: 0,
        refinanced: false,
        mandatory_recategorization: false,
        legal_situation: false,
        technically_irrecoverable: false,
        under_review: false,
        in_court: false,
      },
      {
        name: 'TARJETA NARANJA S.A.U.',
        situation: 3,
        debt: 262000,
        days_overdue: 95,
        refinanced: true,
        mandatory_recategorization: false,
        legal_situation: false,
        technically_irrecoverable: false,
        under_review: false,
        in_court: false,
      },
    ],
    history: [
      { period: '2025-12', worst_situation: 3, total_debt: 412500 },
      { period: '2025-11', worst_situation: null, total_debt: 0 },
      { period: '2025-10', worst_situation: 1, total_debt: 100000 },
    ],
    rejected_checks: 2,
    rejected_checks_unpaid: 1,
    rejected_checks_amount: 51250.75,
  });
  // the three answers, as the registry gave them
  assert.equal(v.raw.debts.results.periodos[0].entidades[0].monto, 150.5);
  assert.equal(v.raw.history.results.periodos.length, 3);
  assert.equal(v.raw.rejected_checks.results.causales[0].causal, 'SIN FONDOS SUFICIENTES');
  assert.deepEqual(bcra.hits.sort(), [
    `/centraldedeudores/v1.0/Deudas/${cuit}`,
    `/centraldedeudores/v1.0/Deudas/ChequesRechazados/${cuit}`,
    `/centraldedeudores/v1.0/Deudas/Historicas/${cuit}`,
  ]);

  // listed, newest first
  const list = json(await h.get(`/api/clients/${client.id}/verifications`));
  assert.equal(list.total, 1);
  assert.deepEqual(list.items[0], v);

  // the audit log names who checked whom; the feed announces it
  const log = json(await h.get(`/api/logs?table_name=verifications&record_id=${v.id}`));
  assert.equal(log.total, 1);
  assert.equal(log.items[0].action, 'INSERT');
  assert.equal(log.items[0].actor, `api_key:${h.tenant.fullKeyId}`);
  assert.equal(log.items[0].new_data.client_id, client.id);
  // the feed numbers what committed (the sequencer pass, docs/events.md) before it is read here
  assert.equal((await h.get('/api/events')).statusCode, 200);
  const events = await h.db.kysely
    .selectFrom('events')
    .select(['type', 'data'])
    .where('business_id', '=', h.tenant.businessId)
    .where('type', '=', 'verification.completed')
    .execute();
  assert.equal(events.length, 1);
  assert.equal((events[0]!.data as { object: { id: string } }).object.id, v.id);
});

test('central bank: not found in any part → 201 not_found with a null summary; partly found → found', async (t) => {
  const bcra = await centralBank(t);
  const h = await build(t, { env: { BCRA_API_URL: bcra.url } });
  const nobody = await clientWith(h, newCuit());
  const res = await h.req(verify(nobody.id));
  assert.equal(res.statusCode, 201, res.body);
  const v = json(res);
  assert.equal(v.status, 'not_found');
  assert.equal(v.summary, null);
  assert.equal(v.raw.debts.status, 404);
  assert.deepEqual(v.raw.debts.errorMessages, ['No se encontró datos para la identificación ingresada.']);

  // only past debts: no current period, the history kept, no checks
  const cuit = newCuit('30');
  bcra.scenarios.set(cuit, { ...FOUND, current: [], checks: [] });
  const past = await clientWith(h, cuit);
  const p = json(await h.req(verify(past.id)));
  assert.equal(p.status, 'found');
  assert.equal(p.summary.period, null);
  assert.equal(p.summary.worst_situation, null);
  assert.equal(p.summary.total_debt, 0);
  assert.deepEqual(p.summary.entities, []);
  assert.equal(p.summary.history.length, 3);
  assert.equal(p.summary.rejected_checks, 0);
  assert.equal(p.summary.rejected_checks_unpaid, 0);
  assert.equal(p.summary.rejected_checks_amount, 0);
});

test('central bank: a failing registry is a 502 upstream_error with its Retry-After, and nothing is stored', async (t) => {
  const bcra = await centralBank(t);
  const h = await build(t, { env: { BCRA_API_URL: bcra.url, VERIFICATION_TIMEOUT_MS: '400' } });
  const cases = [
    [{ kind: 'malformed' }, /not JSON/, null],
    [{ kind: 'wrong_shape' }, /unexpected format \(\/results\/periodos\/0\/entidades\/0\/situacion/, null],
    [{ kind: 'status', status: 429, retryAfter: '30' }, /HTTP 429: Servicio no disponible/, '30'],
    [{ kind: 'status', status: 503, retryAfter: 'Wed, 21 Oct 2099 07:28:00 GMT' }, /HTTP 503/, '86400'],
    [{ kind: 'status', status: 500 }, /HTTP 500/, null],
    [{ kind: 'slow' }, /did not answer within 400 ms/, null],
  ] as const;
  for (const [scenario, message, retryAfter] of cases) {
    const cuit = newCuit();
    bcra.scenarios.set(cuit, scenario);
    const client = await clientWith(h, cuit);
    const res = await h.req(verify(client.id));
    assert.equal(res.statusCode, 502, `${scenario.kind}: ${res.body}`);
    const body = json(res);
    assert.equal(body.code, 'upstream_error');
    assert.match(body.error, message);
    assert.match(body.error, /nothing was stored/);
    assert.equal(res.headers['retry-after'], retryAfter ?? undefined, scenario.kind);
    assert.equal(json(await h.get(`/api/clients/${client.id}/verifications`)).total, 0, scenario.kind);
  }
  // nothing audited either
  assert.equal(json(await h.get('/api/logs?table_name=verifications')).total, 0);

  // a registry nobody listens on (a port just freed)
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  const h2 = await build(t, { env: { BCRA_API_URL: `http://127.0.0.1:${port}` } });
  const c2 = await clientWith(h2, newCuit());
  const res = await h2.req(verify(c2.id));
  assert.equal(res.statusCode, 502);
  assert.match(json(res).error, /could not be reached \(ECONNREFUSED\)/);
});

test('central bank: a verification younger than the TTL is answered again (200) unless refresh=true', async (t) => {
  const bcra = await centralBank(t);
  const clock = settableClock('2026-01-15');
  const h = await build(t, { env: { BCRA_API_URL: bcra.url, VERIFICATION_TTL_HOURS: '24' }, clock });
  const cuit = newCuit();
  bcra.scenarios.set(cuit, FOUND);
  const client = await clientWith(h, cuit);
  const asked = () => bcra.hits.filter((u) => u.endsWith(`/Deudas/${cuit}`)).length;

  const first = json(await h.req(verify(client.id)));
  assert.equal(asked(), 1);
  clock.set(new Date(clock().getTime() + 23 * 3600_000));
  const again = await h.req(verify(client.id));
  assert.equal(again.statusCode, 200);
  assert.deepEqual(json(again), first);
  assert.equal(asked(), 1, 'the registry was not asked again');

  // with an Idempotency-Key the cached answer is stored and replayed like any write's
  const keyed = { ...verify(client.id), headers: { 'idempotency-key': 'check-1' } };
  const k1 = await h.req(keyed);
  assert.equal(k1.statusCode, 200);
  const k2 = await h.req(keyed);
  assert.equal(k2.statusCode, 200);
  assert.equal(k2.headers['idempotent-replayed'], 'true');

  // refresh=true asks again
  const refreshed = await h.req(verify(client.id, 'central_bank', '?refresh=true'));
  assert.equal(refreshed.statusCode, 201);
  assert.notEqual(json(refreshed).id, first.id);
  assert.equal(asked(), 2);

  // past the TTL (from the newest one) it asks again by itself
  clock.set(new Date(clock().getTime() + 24 * 3600_000 + 1000));
  const later = await h.req(verify(client.id));
  assert.equal(later.statusCode, 201);
  assert.equal(asked(), 3);
  const list = json(await h.get(`/api/clients/${client.id}/verifications`));
  assert.equal(list.total, 3);
  assert.deepEqual(
    list.items.map((i: { id: string }) => i.id),
    [json(later).id, json(refreshed).id, first.id],
  );
  assert.equal(json(await h.get(`/api/clients/${client.id}/verifications?source=tax_authority`)).total, 0);

  // a new cuit on the client is a new question
  const other = newCuit();
  bcra.scenarios.set(other, { kind: 'not_found' });
  assert.equal((await h.put(`/api/clients/${client.id}`, { cuit: other })).statusCode, 200);
  const changed = await h.req(verify(client.id));
  assert.equal(changed.statusCode, 201);
  assert.equal(json(changed).cuit, other);
});

test('verifications: a client without a cuit is 422, another business’s client 404, a bad body 400', async (t) => {
  const bcra = await centralBank(t);
  const h = await build(t, { env: { BCRA_API_URL: bcra.url } });
  const bare = await clientWith(h, null);
  for (const source of ['central_bank', 'tax_authority']) {
    const res = await h.req(verify(bare.id, source));
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(json(res).code, 'unprocessable');
    assert.deepEqual(json(res).details, [{ path: '/cuit', message: 'required for a verification' }]);
  }

  const cuit = newCuit();
  bcra.scenarios.set(cuit, FOUND);
  const mine = await clientWith(h, cuit);
  assert.equal((await h.req(verify(mine.id))).statusCode, 201);
  const other = await h.newTenant();
  for (const r of [
    await h.req({ ...verify(mine.id), key: other.fullKey }),
    await h.req({ method: 'GET', url: `/api/clients/${mine.id}/verifications`, key: other.fullKey }),
  ]) {
    assert.equal(r.statusCode, 404, r.body);
    assert.equal(json(r).code, 'not_found');
  }
  assert.equal(bcra.hits.length, 3, 'another business’s request asked no registry');
  // the other business's own client with the same cuit does not see this business's verification
  const theirs = await clientWith(h, cuit, other.fullKey);
  const fresh = await h.req({ ...verify(theirs.id), key: other.fullKey });
  assert.equal(fresh.statusCode, 201);

  for (const body of [{}, { source: 'credit_bureau' }, { source: 'central_bank', extra: 1 }]) {
    const res = await h.req({ method: 'POST', url: `/api/clients/${mine.id}/verifications`, payload: body });
    assert.equal(res.statusCode, 400, JSON.stringify(body));
  }
  assert.equal((await h.req({ ...verify(mine.id), key: h.tenant.readKey })).statusCode, 403);
  assert.equal((await h.get(`/api/clients/${mine.id}/verifications`, h.tenant.readKey)).statusCode, 200);
});
