// Leads (docs/leads.md) through the real app: the public form (stored, audited
// as "lead"; the hidden field; an unknown slug; bad input), the list and its filters, the read,
// the conversion into a client (one transaction; twice is 409; a dni a client has is 409), and
// tenancy (another business's lead is 404 everywhere).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { build, json, type Harness } from '../../../helpers/app.ts';
import { assertErrorBody } from '../../../helpers/security.ts';
import { type Signed, userSession } from '../../../helpers/sessions.ts';
import { aLead, slugOf, submit } from './helpers.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
// no limit per hour unless a test sets one: these tests send many forms from one address
const env = { LEADS_RATE_LIMIT_PER_HOUR: '0', PUBLIC_RATE_LIMIT: '0' };

const leadsOf = async (h: Harness, query = '', key?: string) => {
  const res = await h.get(`/api/leads${query}`, key);
  assert.equal(res.statusCode, 200, res.body);
  return json(res) as { items: any[]; total: number; limit: number; offset: number };
};

const auditTotal = async (h: Harness, table: string) =>
  json(await h.get(`/api/logs?table_name=${table}&limit=1`)).total as number;

test('a lead sent through the public form is stored for its business, audited as the form, and listed', async (t) => {
  const h = await build(t, { env });
  const slug = await slugOf(h, h.tenant.businessId);
  assert.match(slug, /^test-business(-\d+)?$/);
  const body = aLead({ first_name: '  Ana ', message: '  call me after 18 h  ' });

  const res = await submit(h, slug, body);
  assert.equal(res.statusCode, 201, res.body);
  const { id, ...rest } = json(res);
  assert.match(id, UUID);
  assert.deepEqual(rest, {}, 'the answer is the id alone');

  const lead = json(await h.get(`/api/leads/${id}`, h.tenant.readKey));
  assert.deepEqual(lead, {
    id,
    business_id: h.tenant.businessId,
    first_name: 'Ana',
    last_name: 'Pérez',
    dni: body.dni,
    phone: '+54 11 5555-4321',
    email: 'carlos.perez@example.com',
    amount_requested: 250000,
    message: 'call me after 18 h',
    status: 'new',
    converted_client_id: null,
    converted_at: null,
    created_at: lead.created_at,
    updated_at: lead.created_at,
  });
  assert.ok(
    Date.now() - Date.parse(lead.created_at) < 60_000,
    'holds: Date.now() - Date.parse(lead.created_at) < 60_000',
  );

  // only the required fields and a way to answer: an email alone, or a phone alone
  const minimal = await submit(h, slug, { first_name: 'B', last_name: 'C', dni: '1', email: 'b@example.com' });
  assert.equal(minimal.statusCode, 201, minimal.body);
  const phoneOnly = await submit(h, slug, {
    first_name: 'D',
    last_name: 'E',
    dni: '2',
    phone: '011 4555-0000',
    email: null,
    amount_requested: null,
    message: null,
    website: '',
  });
  assert.equal(phoneOnly.statusCode, 201, phoneOnly.body);
  const m = json(await h.get(`/api/leads/${json(minimal).id}`));
  assert.equal(m.phone, null);
  assert.equal(m.amount_requested, null);
  assert.equal(m.message, null);

  // the audit log names the form as the actor
  const entries = json(await h.get(`/api/logs?table_name=leads&record_id=${id}`)).items;
  assert.equal(entries.length, 1);
  assert.equal(entries[0].action, 'INSERT');
  assert.equal(entries[0].actor, 'lead');
  assert.equal(entries[0].new_data.dni, body.dni);

  const page = await leadsOf(h);
  assert.equal(page.total, 3);
  assert.deepEqual(
    page.items.map((l) => l.id),
    [json(phoneOnly).id, json(minimal).id, id],
    'newest first',
  );
});

test('the hidden field filled: 201 with an id like any other, and nothing is stored', async (t) => {
  const h = await build(t, { env });
  const slug = await slugOf(h, h.tenant.businessId);
  const auditBefore = await auditTotal(h, 'leads');

  for (const website of ['http://spam.example', 'x', '  y  ']) {
    const res = await submit(h, slug, aLead({ website }));
    assert.equal(res.statusCode, 201, res.body);
    const { id, ...rest } = json(res);
    assert.match(id, UUID, 'a real-looking id');
    assert.deepEqual(rest, {});
    assertErrorBody(await h.get(`/api/leads/${id}`), 404, 'not_found', 'the dropped lead');
  }
  // the other rules first, as for a person: no phone and no email is a 400 whatever website holds
  const { phone: _p, email: _e, ...unreachable } = aLead({ website: 'http://spam.example' });
  assertErrorBody(await submit(h, slug, unreachable), 400, 'validation_failed', 'a bot without phone or email');
  assert.equal((await leadsOf(h)).total, 0);
  assert.equal(await auditTotal(h, 'leads'), auditBefore, 'no audit entry either');

  // empty or blank, it is an ordinary lead
  for (const website of ['', '   ', null]) {
    const res = await submit(h, slug, aLead({ website }));
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(json(await h.get(`/api/leads/${json(res).id}`)).status, 'new');
  }
  assert.equal((await leadsOf(h)).total, 3);
});

test('a slug no business has, or that cannot be one: 404 in the Error body; nothing is stored', async (t) => {
  const h = await build(t, { env });
  for (const slug of [
    `no-such-business-${randomUUID().slice(0, 8)}`,
    'Test-Business',
    'a--b',
    '-a',
    'a_b',
    'x'.repeat(64),
    '%C3%B1',
    "1'%20OR%20'1'%3D'1",
  ]) {
    assertErrorBody(await submit(h, slug, aLead()), 404, 'not_found', `slug ${slug}`);
    assertErrorBody(await submit(h, slug, aLead({ website: 'spam' })), 404, 'not_found', `slug ${slug}, honeypot`);
  }
  assertErrorBody(
    await h.app.inject({ method: 'POST', url: '/public//leads', payload: aLead() }),
    404,
    undefined,
    '//',
  );
  assertErrorBody(await h.app.inject({ method: 'GET', url: '/public/x/leads' }), 404, 'not_found', 'GET');
  assert.equal((await leadsOf(h)).total, 0);
});

test('bad input is a 400 naming the field, never a 500, and stores nothing', async (t) => {
  const h = await build(t, { env });
  const slug = await slugOf(h, h.tenant.businessId);
  const base = aLead();
  const without = (k: string) => Object.fromEntries(Object.entries(base).filter(([f]) => f !== k));
  const cases: [string, unknown, string][] = [
    ['no first_name', without('first_name'), '/first_name'],
    ['no last_name', without('last_name'), '/last_name'],
    ['no dni', without('dni'), '/dni'],
    ['blank first_name', { ...base, first_name: '   ' }, '/first_name'],
    ['empty dni', { ...base, dni: '' }, '/dni'],
    ['blank dni', { ...base, dni: '  ' }, '/dni'],
    ['dni too long', { ...base, dni: '1'.repeat(33) }, '/dni'],
    ['dni a number', { ...base, dni: 30123456 }, '/dni'],
    ['name too long', { ...base, last_name: 'x'.repeat(101) }, '/last_name'],
    ['email malformed', { ...base, email: 'not-an-email' }, '/email'],
    ['email too long', { ...base, email: `${'a'.repeat(250)}@example.com` }, '/email'],
    ['phone with letters', { ...base, phone: 'call me' }, '/phone'],
    ['phone too long', { ...base, phone: '1'.repeat(41) }, '/phone'],
    ['neither phone nor email', { ...base, phone: null, email: null }, '/phone'],
    ['neither phone nor email (absent)', { ...without('phone'), email: undefined }, '/phone'],
    ['amount zero', { ...base, amount_requested: 0 }, '/amount_requested'],
    ['amount negative', { ...base, amount_requested: -5 }, '/amount_requested'],
    ['amount with 3 decimals', { ...base, amount_requested: 10.123 }, '/amount_requested'],
    ['amount a string', { ...base, amount_requested: '1000' }, '/amount_requested'],
    ['amount too large', { ...base, amount_requested: 1e15 }, '/amount_requested'],
    ['message too long', { ...base, message: 'x'.repeat(2001) }, '/message'],
    ['unknown field', { ...base, salary: 100 }, '/salary'],
    ['website too long', { ...base, website: 'x'.repeat(2001) }, '/website'],
    ['a NUL in text', { ...base, message: 'a\u0000b' }, ''],
  ];
  for (const [what, body, path] of cases) {
    const res = await submit(h, slug, body);
    assertErrorBody(res, 400, 'validation_failed', what);
    if (path) {
      const details = json(res).details as { path: string }[];
      assert.ok(
        details?.some((d) => d.path === path),
        `${what}: details name ${path}: ${res.body}`,
      );
    }
  }
  // not JSON, not an object, another content type
  for (const [payload, type, status] of [
    ['{"first_name": ', 'application/json', 400],
    ['[1, 2]', 'application/json', 400],
    ['"x"', 'application/json', 400],
    ['first_name=a', 'application/x-www-form-urlencoded', 415],
    ['first_name=a', 'text/plain', 415],
  ] as const) {
    const res = await h.app.inject({
      method: 'POST',
      url: `/public/${slug}/leads`,
      payload,
      headers: { 'content-type': type },
    });
    assertErrorBody(res, status, undefined, `${type} ${payload}`);
  }
  assertErrorBody(
    await h.app.inject({ method: 'POST', url: `/public/${slug}/leads` }),
    400,
    'validation_failed',
    'no body',
  );
  assert.equal((await leadsOf(h)).total, 0);
});

test('the list: newest first, paged, narrowed by status and by q; the read', async (t) => {
  const h = await build(t, { env });
  const slug = await slugOf(h, h.tenant.businessId);
  const send = async (b: Record<string, unknown>) => json(await submit(h, slug, aLead(b))).id as string;
  const gomez = await send({ first_name: 'María', last_name: 'Gómez', dni: '30111222', email: 'maria@example.com' });
  const lopez = await send({ first_name: 'Juan', last_name: 'López', dni: '27333444', phone: '351 400-1234' });
  const ruiz = await send({ first_name: 'Ana', last_name: 'Ruiz', dni: '30999888', email: 'ANA.RUIZ@Example.com' });

  assert.deepEqual(
    (await leadsOf(h)).items.map((l) => l.id),
    [ruiz, lopez, gomez],
  );
  const p = await leadsOf(h, '?limit=2&offset=1', h.tenant.readKey);
  assert.deepEqual(
    p.items.map((l) => l.id),
    [lopez, gomez],
  );
  assert.deepEqual([p.total, p.limit, p.offset], [3, 2, 1]);

  const q = async (v: string) => (await leadsOf(h, `?q=${encodeURIComponent(v)}`)).items.map((l) => l.id);
  assert.deepEqual(await q('gomez'), [gomez], 'accents folded');
  assert.deepEqual(await q('GÓM'), [gomez]);
  assert.deepEqual(await q('maria gom'), [gomez], 'first name then last name');
  assert.deepEqual(await q('lopez juan'), [lopez], 'last name then first name');
  assert.deepEqual(await q('301'), [gomez], 'a dni prefix');
  assert.deepEqual(await q('30'), [ruiz, gomez]);
  assert.deepEqual(await q('ana.ruiz@example'), [ruiz], 'an email fragment, case folded');
  assert.deepEqual(await q('400-12'), [lopez], 'a phone fragment');
  assert.deepEqual(await q('%'), [], 'LIKE wildcards are literal');
  assert.deepEqual(await q('_'), []);
  assert.deepEqual(await q('nobody'), []);

  // converted ones by status
  const converted = await h.post(`/api/leads/${lopez}/convert`, {});
  assert.equal(converted.statusCode, 201, converted.body);
  assert.deepEqual(
    (await leadsOf(h, '?status=new')).items.map((l) => l.id),
    [ruiz, gomez],
  );
  assert.deepEqual(
    (await leadsOf(h, '?status=converted')).items.map((l) => l.id),
    [lopez],
  );
  assert.equal((await leadsOf(h, '?status=converted&q=gomez')).total, 0);

  for (const bad of ['?status=lost', '?limit=0', '?limit=101', '?offset=-1', `?q=${'x'.repeat(101)}`, '?foo=1'])
    assertErrorBody(await h.get(`/api/leads${bad}`), 400, 'validation_failed', bad);
  assertErrorBody(await h.get(`/api/leads/${randomUUID()}`), 404, 'not_found', 'no such lead');
  assertErrorBody(await h.get('/api/leads/not-a-uuid'), 404, 'not_found', 'malformed id');
});

test('conversion: the client is created from the lead (and the body), the lead marked converted, both audited', async (t) => {
  const h = await build(t, { env });
  const slug = await slugOf(h, h.tenant.businessId);
  const body = aLead({ dni: `cv-${randomUUID().slice(0, 8)}` });
  const id = json(await submit(h, slug, body)).id as string;

  const res = await h.post(`/api/leads/${id}/convert`, { city: 'Córdoba', cuit: '20-12345678-6', phone: '351 111' });
  assert.equal(res.statusCode, 201, res.body);
  const client = json(res);
  assert.equal(client.business_id, h.tenant.businessId);
  assert.equal(client.first_name, 'Carlos');
  assert.equal(client.last_name, 'Pérez');
  assert.equal(client.dni, body.dni);
  assert.equal(client.email, body.email);
  assert.equal(client.phone, '351 111', 'the body corrects the lead');
  assert.equal(client.city, 'Córdoba', 'and completes it');
  assert.equal(client.cuit, '20123456786', 'with the client rules (a cuit without dashes)');
  assert.equal(json(await h.get(`/api/clients/${client.id}`)).client.dni, body.dni);

  const lead = json(await h.get(`/api/leads/${id}`));
  assert.equal(lead.status, 'converted');
  assert.equal(lead.converted_client_id, client.id);
  assert.ok(
    Math.abs(Date.parse(lead.converted_at) - Date.now()) < 60_000,
    'holds: Math.abs(Date.parse(lead.converted_at) - Date.now()) < 60_000',
  );
  assert.ok(
    Date.parse(lead.updated_at) >= Date.parse(lead.created_at),
    'holds: Date.parse(lead.updated_at) >= Date.parse(lead.created_at)',
  );

  // the client's creation and the lead's change, by the key that converted it
  const actor = `api_key:${h.tenant.fullKeyId}`;
  const clientEntries = json(await h.get(`/api/logs?table_name=clients&record_id=${client.id}`)).items;
  assert.deepEqual(
    clientEntries.map((e: any) => [e.action, e.actor]),
    [['INSERT', actor]],
  );
  const leadEntries = json(await h.get(`/api/logs?table_name=leads&record_id=${id}`)).items;
  assert.deepEqual(
    leadEntries.map((e: any) => [e.action, e.actor]),
    [
      ['UPDATE', actor],
      ['INSERT', 'lead'],
    ],
  );
  assert.equal(leadEntries[0].old_data.status, 'new');
  assert.equal(leadEntries[0].new_data.converted_client_id, client.id);

  // the client's creation is announced like any other: one client.created with the client as read
  const events = json(await h.get('/api/events?types=client.created&limit=100')).items as any[];
  assert.deepEqual(
    events.map((e) => e.data.object),
    [client],
  );

  // converting twice: 409 naming the client; nothing changes
  const again = await h.post(`/api/leads/${id}/convert`, {});
  assertErrorBody(again, 409, 'conflict', 'converting twice');
  assert.match(json(again).error, new RegExp(client.id));
  assert.equal(json(await h.get(`/api/logs?table_name=leads&record_id=${id}`)).total, 2);

  // an empty body, or none at all, converts with the lead's fields alone
  const other = json(await submit(h, slug, aLead())).id as string;
  const plain = await h.req({ method: 'POST', url: `/api/leads/${other}/convert` });
  assert.equal(plain.statusCode, 201, plain.body);
  assert.equal(json(plain).city, null);
});

test('a lead whose dni (or cuit) a client has: 409 naming that client, and neither the client nor the lead changes', async (t) => {
  const h = await build(t, { env });
  const slug = await slugOf(h, h.tenant.businessId);
  const existing = json(await h.post('/api/clients', { dni: '30123456', first_name: 'Ana', cuit: '27-30123456-8' }));
  const id = json(await submit(h, slug, aLead({ dni: ' 30123456 ' }))).id as string;
  const clientsBefore = json(await h.get('/api/clients?limit=1')).total;
  const auditBefore = json(await h.get('/api/logs?limit=1')).total;

  const res = await h.post(`/api/leads/${id}/convert`, {});
  assertErrorBody(res, 409, 'conflict', 'dni taken');
  assert.match(json(res).error, new RegExp(existing.id));
  // a cuit given that a client has: the client use case's own 409, the whole conversion rolled back
  assertErrorBody(
    await h.post(`/api/leads/${id}/convert`, { dni: '99888777', cuit: '27301234568' }),
    409,
    'conflict',
    'cuit taken',
  );
  // bad client fields in the body are the client rules' 400
  assertErrorBody(
    await h.post(`/api/leads/${id}/convert`, { cuit: '20-12345678-0' }),
    400,
    'validation_failed',
    'cuit',
  );
  assertErrorBody(await h.post(`/api/leads/${id}/convert`, { dni: '' }), 400, 'validation_failed', 'dni');
  assertErrorBody(await h.post(`/api/leads/${id}/convert`, { status: 'x' }), 400, 'validation_failed', 'unknown field');

  assert.equal(json(await h.get('/api/clients?limit=1')).total, clientsBefore);
  assert.equal(json(await h.get('/api/logs?limit=1')).total, auditBefore);
  assert.equal(json(await h.get(`/api/leads/${id}`)).status, 'new');
  // a refused conversion announces nothing
  const created = json(await h.get('/api/events?types=client.created&limit=100')).items as any[];
  assert.deepEqual(
    created.map((e) => e.data.object.id),
    [existing.id],
  );

  // with a dni corrected in the body, it converts
  const ok = await h.post(`/api/leads/${id}/convert`, { dni: '99888777' });
  assert.equal(ok.statusCode, 201, ok.body);
  assert.equal(json(ok).dni, '99888777');
});

test('two conversions of one lead at once: one client, one 409', async (t) => {
  const h = await build(t, { env });
  const slug = await slugOf(h, h.tenant.businessId);
  const id = json(await submit(h, slug, aLead())).id as string;
  const [a, b] = await Promise.all([h.post(`/api/leads/${id}/convert`, {}), h.post(`/api/leads/${id}/convert`, {})]);
  assert.deepEqual([a.statusCode, b.statusCode].sort(), [201, 409], `${a.body} ${b.body}`);
  const won = json(a.statusCode === 201 ? a : b);
  assert.equal(json(await h.get(`/api/leads/${id}`)).converted_client_id, won.id);
  assert.equal(json(await h.get(`/api/clients?q=${encodeURIComponent(won.dni)}`)).total, 1);
});

test("tenancy: each business's form stores its own leads; another business's lead is 404 to read and convert", async (t) => {
  const h = await build(t, { env });
  const A = h.tenant;
  const B = await h.newTenant();
  const [slugA, slugB] = [await slugOf(h, A.businessId), await slugOf(h, B.businessId)];
  assert.notEqual(slugA, slugB);
  const leadA = json(await submit(h, slugA, aLead())).id as string;
  const leadB = json(await submit(h, slugB, aLead())).id as string;

  assert.deepEqual(
    (await leadsOf(h)).items.map((l) => l.id),
    [leadA],
  );
  assert.deepEqual(
    (await leadsOf(h, '', B.readKey)).items.map((l) => l.id),
    [leadB],
  );
  assertErrorBody(await h.get(`/api/leads/${leadA}`, B.fullKey), 404, 'not_found', "B reads A's lead");
  assertErrorBody(await h.post(`/api/leads/${leadA}/convert`, {}, B.fullKey), 404, 'not_found', "B converts A's lead");
  assertErrorBody(await h.get(`/api/leads/${leadB}`), 404, 'not_found', "A reads B's lead");
  assert.equal(json(await h.get(`/api/leads/${leadA}`)).status, 'new');

  // keys: none is 401, a read key may not convert (403); the form itself needs no key
  assertErrorBody(await h.get('/api/leads', null), 401, 'unauthorized', 'no key');
  assertErrorBody(await h.post(`/api/leads/${leadA}/convert`, {}, A.readKey), 403, 'forbidden', 'read key');
  const withKey = await h.app.inject({
    method: 'POST',
    url: `/public/${slugA}/leads`,
    payload: aLead(),
    headers: { authorization: `Bearer ${B.fullKey}` },
  });
  assert.equal(withKey.statusCode, 201, 'a key sent to the form is ignored: the slug names the business');
  assert.equal((await leadsOf(h, '', B.readKey)).total, 1);
  assert.equal((await leadsOf(h)).total, 2);
});

test('the OpenAPI document shows the form as public and the lead routes under the key', async (t) => {
  const h = await build(t, { env });
  const doc = json(await h.app.inject({ method: 'GET', url: '/openapi.json' }));
  const form = doc.paths['/public/{business_slug}/leads'].post;
  assert.deepEqual(form.security, []);
  assert.ok(form.responses['429'], 'the per-address limit is declared');
  assert.match(JSON.stringify(form.responses['429']), /an hour/);
  assert.ok(doc.paths['/api/leads'].get, "holds: doc.paths['/api/leads'].get");
  assert.ok(
    doc.paths['/api/leads/{id}/convert'].post.responses['409'],
    "holds: doc.paths['/api/leads/{id}/convert'].post.responses['409']",
  );
  assert.ok(doc.components.schemas.Lead, 'doc.components.schemas.Lead is set');
});

test('roles: a viewer reads leads and may not convert; an employee converts, and the audit names the user', async (t) => {
  const h = await build(t, { env });
  const slug = await slugOf(h, h.tenant.businessId);
  const id = json(await submit(h, slug, aLead())).id as string;
  const viewer = await userSession(h, h.tenant.businessId, 'viewer');
  const employee = await userSession(h, h.tenant.businessId, 'employee');
  const as = (s: Signed, method: 'GET' | 'POST', url: string) =>
    h.app.inject({
      method,
      url,
      headers: method === 'GET' ? s.read : s.write,
      ...(method === 'POST' ? { payload: {} } : {}),
    });

  assert.equal((await as(viewer, 'GET', '/api/leads')).statusCode, 200);
  assert.equal((await as(viewer, 'GET', `/api/leads/${id}`)).statusCode, 200);
  assertErrorBody(await as(viewer, 'POST', `/api/leads/${id}/convert`), 403, 'forbidden', 'a viewer converting');
  const res = await as(employee, 'POST', `/api/leads/${id}/convert`);
  assert.equal(res.statusCode, 201, res.body);
  const entries = json(await h.get(`/api/logs?table_name=leads&record_id=${id}`)).items;
  assert.equal(entries[0].actor, `user:${employee.id}`);
});
