// Verification lookups (docs/verification.md):
// POST /api/clients/{id}/verifications {source} → 201 Verification {id, client_id, source, cuit,
// status found|not_found, summary, raw, created_by, created_at}; a lookup of the same source and
// cuit younger than VERIFICATION_TTL_HOURS (24) is returned instead (200) unless ?refresh=true;
// an unreachable or failing registry is 502 upstream_error (nothing stored) after 10 s, with
// Retry-After when the registry asked; the tax authority without ARCA_* is 503 not_configured.
//
// The central bank registry is a local server answering in the format of the BCRA's public
// "Central de Deudores" API v1.0: GET /centraldedeudores/v1.0/Deudas/{cuit},
// /Deudas/Historicas/{cuit}, /Deudas/ChequesRechazados/{cuit}; `{"status": 200, "results": {...}}`,
// amounts (`monto`) in thousands of pesos, periods as "YYYYMM"; an unknown CUIT is
// `404 {"status": 404, "errorMessages": [...]}`.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { build, settableClock, type Harness } from '../../../helpers/app.ts';
import {
  client,
  error,
  feed,
  itemsOf,
  json,
  localServer,
  objectOf,
  status,
  UUID,
  RFC3339,
  validCuit,
} from '../../../helpers/acceptance.ts';

const BANK_A = 'BANCO DE LA NACION ARGENTINA';
const BANK_B = 'BANCO DE GALICIA Y BUENOS AIRES S.A.U.';

function entity(entidad: string, situacion: number, monto: number) {
  return {
    entidad,
    situacion,
    fechaSit1: '2019-04-30',
    monto,
    diasAtrasoPago: situacion > 1 ? 45 : 0,
    refinanciaciones: false,
    recategorizacionOblig: false,
    situacionJuridica: false,
    irrecDisposicionTecnica: false,
    enRevision: false,
    procesoJud: false,
  };
}
const historic = (entidad: string, situacion: number, monto: number) => ({
  entidad,
  situacion,
  monto,
  enRevision: false,
  procesoJud: false,
});

/** The registry's answers for a CUIT on file: two entities now, three months of history, two rejected checks. */
function onFile(cuit: string) {
  const identificacion = Number(cuit);
  const denominacion = 'PEREZ JUAN CARLOS';
  return {
    deudas: {
      status: 200,
      results: {
        identificacion,
        denominacion,
        periodos: [{ periodo: '202506', entidades: [entity(BANK_A, 1, 150.0), entity(BANK_B, 3, 1234.5)] }],
      },
    },
    historicas: {
      status: 200,
      results: {
        identificacion,
        denominacion,
        periodos: [
          { periodo: '202506', entidades: [historic(BANK_A, 1, 150.0), historic(BANK_B, 3, 1234.5)] },
          { periodo: '202505', entidades: [historic(BANK_A, 1, 140.0), historic(BANK_B, 2, 1100.0)] },
          { periodo: '202504', entidades: [historic(BANK_A, 1, 130.0)] },
        ],
      },
    },
    cheques: {
      status: 200,
      results: {
        identificacion,
        denominacion,
        causales: [
          {
            causal: 'SIN FONDOS SUFICIENTES',
            entidades: [
              {
                entidad: 7,
                detalle: [
                  {
                    nroCheque: 31234567,
                    fechaRechazo: '2025-03-02',
                    monto: 250000.0,
                    fechaPago: null,
                    fechaPagoMulta: null,
                    estadoMulta: 'IMPAGA',
                    ctaPersonal: true,
                    denomJuridica: null,
                    enRevision: false,
                    procesoJud: false,
                  },
                  {
                    nroCheque: 31234568,
                    fechaRechazo: '2025-04-11',
                    monto: 120000.0,
                    fechaPago: '2025-04-20',
                    fechaPagoMulta: null,
                    estadoMulta: null,
                    ctaPersonal: true,
                    denomJuridica: null,
                    enRevision: false,
                    procesoJud: false,
                  },
                ],
              },
            ],
          },
        ],
      },
    },
  };
}

const NOT_FOUND = { status: 404, errorMessages: ['No se encontró datos para la identificación ingresada.'] };

type Behaviour = 'found' | 'unknown' | 'malformed' | 'broken' | 'throttled' | 'hang';

/** The registry: each CUIT behaves as told. */
async function registry(t: TestContext) {
  const behaviour = new Map<string, Behaviour>();
  const server = await localServer(t, (r) => {
    const m = /^\/centraldedeudores\/v1\.0\/Deudas\/(?:(Historicas|ChequesRechazados)\/)?(\d{11})$/.exec(r.url);
    if (r.method !== 'GET' || !m) return { status: 404, body: NOT_FOUND };
    const [, kind, cuit] = m;
    const b = behaviour.get(cuit!) ?? 'unknown';
    if (b === 'hang') return new Promise<never>(() => {});
    if (b === 'unknown') return { status: 404, body: NOT_FOUND };
    if (b === 'malformed') return { status: 200, body: '<html><body>Mantenimiento</body></html>' };
    if (b === 'broken') return { status: 503, body: { status: 503, errorMessages: ['Servicio no disponible'] } };
    if (b === 'throttled') return { status: 429, body: 'Too Many Requests', headers: { 'retry-after': '120' } };
    const a = onFile(cuit!);
    return {
      status: 200,
      body: kind === 'Historicas' ? a.historicas : kind === 'ChequesRechazados' ? a.cheques : a.deudas,
    };
  });
  return { ...server, behaviour };
}

/** A harness whose central bank registry is the local one. */
async function setup(t: TestContext, opts: { clock?: ReturnType<typeof settableClock> } = {}) {
  const reg = await registry(t);
  const h = await build(t, { env: { BCRA_API_URL: reg.url }, ...(opts.clock ? { clock: opts.clock } : {}) });
  return { h, reg };
}

async function clientWithCuit(h: Harness, cuit = validCuit()) {
  return client(h, { cuit });
}

const verify = (h: Harness, clientId: string, source = 'central_bank', query = '') =>
  h.post(`/api/clients/${clientId}/verifications${query}`, { source });
const count = (v: unknown) => (Array.isArray(v) ? v.length : v);
const period = (p: unknown) => String(p).replace(/\D/g, '');

test('central bank, on file: 201 with the summary (worst situation, debt in pesos, entities, history, rejected checks) and the raw answer', async (t) => {
  const { h, reg } = await setup(t);
  const c = await clientWithCuit(h);
  reg.behaviour.set(c.cuit, 'found');

  const res = await verify(h, c.id);
  status(res, 201);
  const v = json(res);
  assert.match(v.id, UUID);
  assert.equal(v.client_id, c.id);
  assert.equal(v.source, 'central_bank');
  assert.equal(v.cuit, c.cuit);
  assert.equal(v.status, 'found');
  assert.match(v.created_at, RFC3339);
  // ASSUMPTION: created_by is the actor as the audit log writes it (`api_key:<key id>`)
  assert.ok(String(v.created_by).includes(h.tenant.fullKeyId), `created_by names the key: ${v.created_by}`);

  const s = v.summary;
  assert.equal(s.name, 'PEREZ JUAN CARLOS');
  assert.equal(period(s.period), '202506');
  assert.equal(s.worst_situation, 3);
  // (150.0 + 1234.5) thousand pesos
  assert.equal(s.total_debt, 1_384_500);
  assert.equal(count(s.entities), 2, `entities: ${JSON.stringify(s.entities)}`);
  assert.deepEqual(
    s.history
      .map((x: any) => [period(x.period), x.worst_situation, x.total_debt])
      .sort((a: any, b: any) => (a[0] < b[0] ? -1 : 1)),
    [
      ['202504', 1, 130_000],
      ['202505', 2, 1_240_000],
      ['202506', 3, 1_384_500],
    ],
  );
  assert.equal(count(s.rejected_checks), 2, `rejected_checks: ${JSON.stringify(s.rejected_checks)}`);
  // the registry's own answer is kept
  const raw = JSON.stringify(v.raw);
  assert.ok(raw.includes('PEREZ JUAN CARLOS') && raw.includes('1234.5'), `raw: ${raw.slice(0, 300)}`);

  // the three documented resources were asked for, for that CUIT
  const paths = reg.received.map((r) => r.url).sort();
  assert.deepEqual(paths, [
    `/centraldedeudores/v1.0/Deudas/${c.cuit}`,
    `/centraldedeudores/v1.0/Deudas/ChequesRechazados/${c.cuit}`,
    `/centraldedeudores/v1.0/Deudas/Historicas/${c.cuit}`,
  ]);

  // listed, for read keys too
  const list = await h.get(`/api/clients/${c.id}/verifications`, h.tenant.readKey);
  assert.deepEqual(
    itemsOf(list, 'GET verifications').map((x: any) => x.id),
    [v.id],
  );
  // a read key cannot look up
  error(
    await h.post(`/api/clients/${c.id}/verifications`, { source: 'central_bank' }, h.tenant.readKey),
    403,
    'forbidden',
  );

  // verification.completed in the feed, with the verification
  const events = await feed(h, { types: 'verification.completed' });
  assert.equal(events.length, 1);
  assert.equal(objectOf(events[0]).id, v.id);
});

test('central bank: unknown CUIT is a stored not_found; repeated lookups are cached for 24 h unless refresh=true', async (t) => {
  const t0 = Date.now() + 2000;
  const HOUR = 3_600_000;
  const clock = settableClock(new Date(t0));
  const { h, reg } = await setup(t, { clock });
  const c = await clientWithCuit(h);

  const first = await verify(h, c.id);
  status(first, 201);
  assert.equal(json(first).status, 'not_found');
  assert.equal(json(first).cuit, c.cuit);
  const asked = reg.received.length;
  assert.ok(asked >= 1, 'holds: asked >= 1');

  // within the TTL: the same verification, 200, the registry not asked again
  clock.set(new Date(t0 + 23 * HOUR));
  const again = await verify(h, c.id);
  status(again, 200);
  assert.equal(json(again).id, json(first).id);
  assert.equal(reg.received.length, asked);

  // refresh=true asks again
  reg.behaviour.set(c.cuit, 'found');
  const fresh = await verify(h, c.id, 'central_bank', '?refresh=true');
  status(fresh, 201);
  assert.notEqual(json(fresh).id, json(first).id);
  assert.equal(json(fresh).status, 'found');
  assert.ok(reg.received.length > asked, 'holds: reg.received.length > asked');

  // older than 24 h (ASSUMPTION: measured on the app's clock): a new lookup
  clock.set(new Date(t0 + 48 * HOUR + 1000));
  const later = await verify(h, c.id);
  status(later, 201);
  assert.notEqual(json(later).id, json(fresh).id);

  assert.equal(itemsOf(await h.get(`/api/clients/${c.id}/verifications`)).length, 3);
});

test('central bank failing: 502 upstream_error and nothing stored (malformed answer, 5xx, 429 with Retry-After)', async (t) => {
  const { h, reg } = await setup(t);
  const c = await clientWithCuit(h);
  for (const b of ['malformed', 'broken', 'throttled'] as const) {
    reg.behaviour.set(c.cuit, b);
    const res = await verify(h, c.id);
    const body = error(res, 502, 'upstream_error', b);
    assert.ok(!JSON.stringify(body).includes('Mantenimiento'), 'the registry body is not echoed');
    if (b === 'throttled') assert.equal(res.headers['retry-after'], '120', 'Retry-After passed on');
  }
  assert.equal(itemsOf(await h.get(`/api/clients/${c.id}/verifications`)).length, 0, 'nothing stored');
  assert.deepEqual(await feed(h, { types: 'verification.completed' }), []);

  // the registry back: a normal lookup (failures were not cached)
  reg.behaviour.set(c.cuit, 'found');
  status(await verify(h, c.id), 201);
});

test('central bank unreachable: 502 upstream_error', async (t) => {
  const reg = await registry(t);
  const url = reg.url;
  await reg.close();
  const h = await build(t, { env: { BCRA_API_URL: url } });
  const c = await clientWithCuit(h);
  error(await verify(h, c.id), 502, 'upstream_error');
});

test('central bank too slow: 502 upstream_error after the 10 s timeout', { timeout: 60_000 }, async (t) => {
  const { h, reg } = await setup(t);
  const c = await clientWithCuit(h);
  reg.behaviour.set(c.cuit, 'hang');
  const started = Date.now();
  error(await verify(h, c.id), 502, 'upstream_error');
  const took = Date.now() - started;
  assert.ok(took >= 9_000 && took < 30_000, `timed out after about 10 s: ${took} ms`);
});

test('requests that cannot be looked up: no cuit 422, bad source 400, tax authority not configured 503, other business 404', async (t) => {
  const { h } = await setup(t);
  const plain = await client(h);
  error(await verify(h, plain.id), 422, 'unprocessable');
  const c = await clientWithCuit(h);
  error(await verify(h, c.id, 'credit_bureau'), 400, 'validation_failed');
  error(await h.post(`/api/clients/${c.id}/verifications`, {}), 400, 'validation_failed');
  // ARCA_CERT, ARCA_KEY, ARCA_CUIT not set
  error(await verify(h, c.id, 'tax_authority'), 503, 'not_configured');
  const other = await h.newTenant();
  error(
    await h.post(`/api/clients/${c.id}/verifications`, { source: 'central_bank' }, other.fullKey),
    404,
    'not_found',
  );
  error(await h.get(`/api/clients/${c.id}/verifications`, other.fullKey), 404, 'not_found');
  error(await verify(h, 'not-a-uuid'), 404, 'not_found');
});
