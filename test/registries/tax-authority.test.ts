// Verifications against ARCA's taxpayer register (padrón A13 through WSAA), through the real app
// against a local WSAA and padrón answering in their documented SOAP: the login request is a CMS
// signed with the configured certificate (checked by the fake WSAA with pkijs), the ticket is
// reused until it expires (also by a second process on the same database), not found, a SOAP
// fault, a certificate WSAA does not trust, not configured (503); the token and sign appear in no
// response, stored answer or log line.
import { type TestContext, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/http/app.ts';
import { loadConfig } from '../../src/config.ts';
import { DirectoryStorage } from '../../src/storage/directory.ts';
import { build, createTenant, json, settableClock } from '../helpers/app.ts';
import { capturedLogger } from '../helpers/server.ts';
import { arca, centralBank, clientWith, newCuit, testCertificate } from './helpers.ts';

const verify = (id: string, query = '') => ({
  method: 'POST' as const,
  url: `/api/clients/${id}/verifications${query}`,
  payload: { source: 'tax_authority' },
});

async function setup(t: TestContext, opts: { clock?: ReturnType<typeof settableClock> } = {}) {
  const representada = newCuit('30');
  const cert = await testCertificate(representada);
  const fake = await arca(t, cert, representada);
  const env = { ARCA_CERT: cert.certPem, ARCA_KEY: cert.keyPem, ARCA_CUIT: representada, ...fake.env };
  const h = await build(t, { env, clock: opts.clock });
  return { h, fake, cert, env, representada };
}

test('tax authority: a person and a company found, summarised; one login, its ticket reused', async (t) => {
  const { h, fake } = await setup(t);
  const person = newCuit('20');
  const company = newCuit('30');
  fake.persons.set(person, { kind: 'person', apellido: 'GARCIA', nombre: 'ANA MARIA', estadoClave: 'ACTIVO' });
  fake.persons.set(company, { kind: 'company', razonSocial: 'ACME SA', estadoClave: 'INACTIVO' });
  const a = await clientWith(h, person);
  const b = await clientWith(h, company);

  const res = await h.req(verify(a.id));
  assert.equal(res.statusCode, 201, res.body);
  const v = json(res);
  assert.equal(v.source, 'tax_authority');
  assert.equal(v.status, 'found');
  assert.equal(v.cuit, person);
  assert.deepEqual(v.summary, {
    name: 'GARCIA ANA MARIA',
    kind: 'person',
    status: 'ACTIVO',
    address: {
      street: 'AV CORRIENTES 1234',
      city: 'CAPITAL FEDERAL',
      province: 'CIUDAD AUTONOMA BUENOS AIRES',
      postal_code: '1043',
    },
    activities: [{ id: '620100', description: 'SERVICIOS DE CONSULTORES EN INFORMÁTICA', period: '201904' }],
  });
  assert.match(v.raw.get_persona, /<personaReturn>/);
  assert.equal(fake.logins.length, 1);
  assert.equal(fake.logins[0]!.service, 'ws_sr_padron_a13');

  const c = json(await h.req(verify(b.id)));
  assert.equal(c.summary.name, 'ACME SA');
  assert.equal(c.summary.kind, 'company');
  assert.equal(c.summary.status, 'INACTIVO');
  assert.equal(fake.logins.length, 1, 'the second verification used the same ticket');
  assert.equal(fake.calls.length, 2);
  assert.equal(fake.calls[0]!.token, fake.calls[1]!.token);

  // the credentials appear in no answer, no stored verification and no audit entry
  const [token] = [...fake.tickets.keys()];
  const ticket = await h.db.kysely
    .selectFrom('arca_tickets')
    .select(['token', 'sign'])
    .where('token', '=', token!)
    .executeTakeFirstOrThrow();
  const everything = [
    res.body,
    (await h.get(`/api/clients/${a.id}/verifications`)).body,
    (await h.get(`/api/clients/${b.id}/verifications`)).body,
    (await h.get('/api/logs?table_name=verifications')).body,
    (await h.get('/api/logs?limit=100')).body,
  ].join('\n');
  assert.equal(everything.includes(ticket.token), false, 'token leaked');
  assert.equal(everything.includes(ticket.sign), false, 'sign leaked');
  assert.equal(json(await h.get('/api/logs?table_name=arca_tickets')).total, 0, 'tickets are not audited');
});

test('tax authority: the ticket lasts until it expires, in this process and in the next one', async (t) => {
  const clock = settableClock('2026-03-02');
  const { h, fake, env } = await setup(t, { clock });
  const cuits = [newCuit(), newCuit(), newCuit(), newCuit()];
  for (const c of cuits)
    fake.persons.set(c, { kind: 'person', apellido: 'PEREZ', nombre: 'JUAN', estadoClave: 'ACTIVO' });
  const clients = await Promise.all(cuits.map((c) => clientWith(h, c)));

  assert.equal((await h.req(verify(clients[0]!.id))).statusCode, 201);
  assert.equal(fake.logins.length, 1);

  // 11 hours later: the same ticket (WSAA would refuse a new login anyway)
  clock.set(new Date(clock().getTime() + 11 * 3600_000));
  assert.equal((await h.req(verify(clients[1]!.id))).statusCode, 201);
  assert.equal(fake.logins.length, 1);

  // another process on the same database (a restart): it finds the ticket there, logs in no more
  const dataDir = mkdtempSync(join(tmpdir(), 'lending-verif-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ACCRUAL_SCHEDULE: 'off', ...env });
  const second = await buildApp({ db: h.db, config, storage: new DirectoryStorage(config.filesDir), clock });
  t.after(async () => {
    await second.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const res = await second.inject({
    ...verify(clients[2]!.id),
    headers: { authorization: `Bearer ${h.tenant.fullKey}` },
  });
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(fake.logins.length, 1, 'the second process reused the stored ticket');

  // past its expiry (12 hours from the login): a new login, a new token
  clock.set(new Date(clock().getTime() + 2 * 3600_000));
  assert.equal((await h.req(verify(clients[3]!.id))).statusCode, 201);
  assert.equal(fake.logins.length, 2);
  assert.notEqual(fake.calls.at(-1)!.token, fake.calls[0]!.token);
});

test('tax authority: WSAA refuses a login while a ticket it issued is valid; a process without it says why', async (t) => {
  const { h, fake, env } = await setup(t);
  const cuits = [newCuit(), newCuit(), newCuit()];
  for (const c of cuits)
    fake.persons.set(c, { kind: 'person', apellido: 'RUIZ', nombre: 'EVA', estadoClave: 'ACTIVO' });
  const clients = await Promise.all(cuits.map((c) => clientWith(h, c)));
  assert.equal((await h.req(verify(clients[0]!.id))).statusCode, 201);

  // the stored ticket is gone (a database restored from before the login): a new process must log in
  await h.db.kysely.deleteFrom('arca_tickets').where('wsaa_url', '=', env.ARCA_WSAA_URL).execute();
  const dataDir = mkdtempSync(join(tmpdir(), 'lending-verif-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ACCRUAL_SCHEDULE: 'off', ...env });
  const second = await buildApp({ db: h.db, config, storage: new DirectoryStorage(config.filesDir) });
  t.after(async () => {
    await second.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const res = await second.inject({
    ...verify(clients[1]!.id),
    headers: { authorization: `Bearer ${h.tenant.fullKey}` },
  });
  assert.equal(res.statusCode, 502, res.body);
  assert.match(json(res).error, /already holds a valid ticket for ws_sr_padron_a13 that this server does not have/);
  assert.equal(fake.logins.length, 1);
  // the process that logged in keeps answering with the ticket in its memory
  assert.equal((await h.req(verify(clients[2]!.id))).statusCode, 201);
});

test('tax authority: not found, a SOAP fault, a busy register, a certificate WSAA does not trust', async (t) => {
  const { h, fake } = await setup(t);
  const nobody = await clientWith(h, newCuit());
  const res = await h.req(verify(nobody.id));
  assert.equal(res.statusCode, 201, res.body);
  const v = json(res);
  assert.equal(v.status, 'not_found');
  assert.equal(v.summary, null);
  assert.match(v.raw.get_persona, /No existe persona con ese Id/);

  const broken = newCuit();
  fake.persons.set(broken, { kind: 'fault', message: 'Error interno de base de datos' });
  const faulty = await clientWith(h, broken);
  const r = await h.req(verify(faulty.id));
  assert.equal(r.statusCode, 502, r.body);
  assert.equal(json(r).code, 'upstream_error');
  assert.match(json(r).error, /padrón A13\) answered with a fault: Error interno de base de datos/);

  const busy = newCuit();
  fake.persons.set(busy, { kind: 'status', status: 503, retryAfter: '120' });
  const b = await clientWith(h, busy);
  const rb = await h.req(verify(b.id));
  assert.equal(rb.statusCode, 502);
  assert.equal(rb.headers['retry-after'], '120');
  assert.equal(json(await h.get(`/api/clients/${faulty.id}/verifications`)).total, 0, 'nothing stored');
  assert.equal(json(await h.get(`/api/clients/${b.id}/verifications`)).total, 0, 'nothing stored');

  // a server whose certificate is not the one ARCA issued: WSAA refuses the signed login
  const representada = newCuit('30');
  const issued = await testCertificate(representada);
  const other = await testCertificate(representada);
  const strict = await arca(t, issued, representada);
  const h2 = await build(t, {
    env: { ARCA_CERT: other.certPem, ARCA_KEY: other.keyPem, ARCA_CUIT: representada, ...strict.env },
  });
  const cuit = newCuit();
  strict.persons.set(cuit, { kind: 'person', apellido: 'X', nombre: 'Y', estadoClave: 'ACTIVO' });
  const c = await clientWith(h2, cuit);
  const refused = await h2.req(verify(c.id));
  assert.equal(refused.statusCode, 502);
  assert.match(
    json(refused).error,
    /refused the login: Certificado no emitido por AC de confianza \(ns1:cms.cert.untrusted\)/,
  );
  assert.equal(strict.refusals(), 1);
  assert.equal(strict.logins.length, 0);
});

test('tax authority: not configured is 503 not_configured; the central bank still answers', async (t) => {
  const bcra = await centralBank(t);
  const h = await build(t, { env: { BCRA_API_URL: bcra.url } });
  const client = await clientWith(h, newCuit());
  const cb = await h.req({ ...verify(client.id), payload: { source: 'central_bank' } });
  assert.equal(cb.statusCode, 201, cb.body);
  const res = await h.req(verify(client.id));
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(json(res).code, 'not_configured');
  assert.match(json(res).error, /ARCA_CERT, ARCA_KEY and ARCA_CUIT/);
  assert.equal(json(await h.get(`/api/clients/${client.id}/verifications?source=tax_authority`)).total, 0);
});

test('tax authority: certificate and key from files; no token, sign or key in any log line', async (t) => {
  const representada = newCuit('30');
  const cert = await testCertificate(representada);
  const fake = await arca(t, cert, representada);
  const dir = mkdtempSync(join(tmpdir(), 'lending-arca-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'arca.crt'), cert.certPem);
  writeFileSync(join(dir, 'arca.key'), cert.keyPem, { mode: 0o600 });
  const config = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'trace',
    ACCRUAL_SCHEDULE: 'off',
    ARCA_CERT: join(dir, 'arca.crt'),
    ARCA_KEY: join(dir, 'arca.key'),
    ARCA_CUIT: representada,
    ...fake.env,
  });
  const log = capturedLogger('trace');
  const { sharedTestDb } = await import('../helpers/db.ts');
  const db = await sharedTestDb();
  const app = await buildApp({ db, config, storage: new DirectoryStorage(config.filesDir), logger: log.logger });
  t.after(() => app.close());
  const tenant = await createTenant(db);
  const auth = { authorization: `Bearer ${tenant.fullKey}` };
  const cuit = newCuit();
  fake.persons.set(cuit, { kind: 'person', apellido: 'GOMEZ', nombre: 'LUIS', estadoClave: 'ACTIVO' });
  const client = json(
    await app.inject({ method: 'POST', url: '/api/clients', headers: auth, payload: { dni: 'l1', cuit } }),
  );
  const ok = await app.inject({ ...verify(client.id), headers: auth });
  assert.equal(ok.statusCode, 201, ok.body);
  const broken = newCuit();
  fake.persons.set(broken, { kind: 'fault', message: 'Error interno' });
  const c2 = json(
    await app.inject({ method: 'POST', url: '/api/clients', headers: auth, payload: { dni: 'l2', cuit: broken } }),
  );
  assert.equal((await app.inject({ ...verify(c2.id), headers: auth })).statusCode, 502);

  await new Promise((r) => setTimeout(r, 50));
  const text = log.raw.join('\n');
  assert.ok(log.raw.length > 3, 'the requests were logged');
  const [token] = [...fake.tickets.keys()];
  const row = await db.kysely
    .selectFrom('arca_tickets')
    .select(['token', 'sign'])
    .where('token', '=', token!)
    .executeTakeFirstOrThrow();
  const keyBody = cert.keyPem.split('\n')[1]!;
  for (const [what, secret] of [
    ['token', row.token],
    ['sign', row.sign],
    ['private key', keyBody],
  ] as const)
    assert.equal(text.includes(secret), false, `${what} in the log`);
  // and the configuration itself never shows the key
  assert.equal(JSON.stringify(config).includes(keyBody), false);
});
