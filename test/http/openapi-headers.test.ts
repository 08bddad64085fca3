// The OpenAPI document declares what the server really sends: every response header a real
// answer carries is declared on that operation's response with that status, every event type has
// its `webhooks` entry (with the headers a real delivery carries), and info.version is the
// package's, with its section in CHANGELOG.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { build, json, type Harness } from '../helpers/app.ts';
import { newUser, PASSWORD, signIn, sessionOf } from '../helpers/sessions.ts';
import { upload, newClient } from '../helpers/files.ts';
import { png } from '../helpers/file-fixtures.ts';
import { EVENT_OBJECTS, EVENT_TYPES } from '../../src/services/events.ts';
import { createEndpoint, receiver, runAt } from '../helpers/webhooks.ts';

/** HTTP's own framing: not part of any operation's contract. */
const FRAMING = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

type Doc = {
  info: { version: string };
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; headers?: object }> }>>;
  components: { responses: Record<string, { headers?: object }>; headers: Record<string, unknown> };
  webhooks: Record<string, { post: { parameters: { name: string; in: string }[] } }>;
};

async function documentOf(h: Harness): Promise<Doc> {
  const res = await h.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  return json<Doc>(res);
}

/** The declared header names (lower case) of the operation answering this request with this status. */
function declared(doc: Doc, method: string, url: string, status: number): Set<string> {
  const path = new URL(url, 'http://x').pathname;
  const matches = Object.keys(doc.paths).filter((p) =>
    new RegExp(`^${p.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
  );
  // a literal path wins over a templated one (/api/clients/search-like literals)
  const template = matches.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))[0];
  assert.ok(template, `${method} ${path} is not in the document`);
  const op = doc.paths[template]![method.toLowerCase()];
  assert.ok(op, `${method} ${template} is not in the document`);
  let response = op.responses[String(status)];
  assert.ok(response, `${method} ${template} does not declare ${status}`);
  if (response.$ref) response = doc.components.responses[response.$ref.split('/').pop()!]!;
  return new Set(Object.keys(response.headers ?? {}).map((n) => n.toLowerCase()));
}

function check(doc: Doc, method: string, url: string, res: LightMyRequestResponse, seen: Set<string>) {
  const names = declared(doc, method, url, res.statusCode);
  for (const name of Object.keys(res.headers)) {
    if (FRAMING.has(name)) continue;
    seen.add(name);
    assert.ok(
      names.has(name),
      `${method} ${url} → ${res.statusCode} sends ${name}, which its operation does not declare`,
    );
  }
}

test('every header a response carries is declared on its operation and status', async (t) => {
  const h = await build(t, { env: { RATE_LIMIT: '1000' } });
  const doc = await documentOf(h);
  const seen = new Set<string>();
  const send = async (
    method: string,
    url: string,
    opts: { payload?: unknown; headers?: Record<string, string>; key?: string | null } = {},
  ) => {
    const res = await h.req({
      method: method as 'GET',
      url,
      payload: opts.payload as object,
      headers: opts.headers,
      key: opts.key,
    });
    check(doc, method, url, res, seen);
    return res;
  };

  // reads, writes, a replayed write, refusals
  await send('GET', '/api/clients');
  const key = randomUUID();
  const body = { dni: `${Date.now()}`.slice(-8), first_name: 'Ana', last_name: 'Pérez' };
  const created = await send('POST', '/api/clients', { payload: body, headers: { 'idempotency-key': key } });
  assert.equal(created.statusCode, 201);
  const replay = await send('POST', '/api/clients', { payload: body, headers: { 'idempotency-key': key } });
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  await send('GET', `/api/clients/${randomUUID()}`);
  await send('GET', '/api/clients', { key: null });
  await send('POST', '/api/clients', { payload: { dni: 5 } });
  await send('POST', '/api/clients', { payload: body, key: h.tenant.readKey });
  await send('GET', '/healthz');

  // documents: a plan, a credit, a payment, its receipt and the statement as PDF, an export, a file
  const plan = json(
    await send('POST', '/api/credit-configs', { payload: { name: 'Tres', installments_count: 3, interest_rate: 0.2 } }),
  );
  const client = json(created);
  const credit = json(
    await send('POST', `/api/clients/${client.id}/credits`, { payload: { credit_config_id: plan.id, amount: 30000 } }),
  );
  const creditId = credit.credit?.id ?? credit.id;
  const paid = json(await send('POST', `/api/credits/${creditId}/payments`, { payload: { amount: 1000 } }));
  const paymentId = paid.payment?.id ?? paid.id;
  await send('GET', `/api/credits/${creditId}/statement`, { headers: { accept: 'application/pdf' } });
  await send('GET', `/api/credits/${creditId}/statement`);
  if (paymentId)
    await send('GET', `/api/credits/${creditId}/payments/${paymentId}/receipt`, {
      headers: { accept: 'application/pdf' },
    });
  await send('GET', '/api/reports/exports/clients.csv');
  const owner = await newClient(h);
  assert.equal((await upload(h, owner.id, 'dni.png', png())).statusCode, 201);
  await send('GET', `/api/files/${owner.id}/dni.png`);

  // a session: sign in, a read, sign out
  const u = await newUser(h, h.tenant.businessId, 'admin');
  const login = await signIn(h, u.email, PASSWORD);
  check(doc, 'POST', '/auth/login', login, seen);
  const s = sessionOf(u.id, u.email, login);
  const me = await h.app.inject({ method: 'GET', url: '/auth/me', headers: s.read });
  check(doc, 'GET', '/auth/me', me, seen);
  const out = await h.app.inject({ method: 'POST', url: '/auth/logout', headers: s.write });
  check(doc, 'POST', '/auth/logout', out, seen);

  // the headers this walk must have met, or it proves little
  for (const name of [
    'x-request-id',
    'x-ratelimit-limit',
    'idempotent-replayed',
    'set-cookie',
    'content-disposition',
    'cache-control',
  ])
    assert.ok(seen.has(name), `no response carried ${name}`);
});

test('a 429 declares Retry-After and the rate-limit headers', async (t) => {
  const h = await build(t, { env: { RATE_LIMIT: '2' } });
  const doc = await documentOf(h);
  const seen = new Set<string>();
  let last: LightMyRequestResponse | undefined;
  for (let i = 0; i < 3; i++) {
    last = await h.get('/api/clients');
    check(doc, 'GET', '/api/clients', last, seen);
  }
  assert.equal(last!.statusCode, 429);
  assert.ok(seen.has('retry-after'), "holds: seen.has('retry-after')");
});

test('every event type has its webhook, declaring the headers a real delivery carries', async (t) => {
  const h = await build(t, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  const doc = await documentOf(h);
  assert.deepEqual(Object.keys(doc.webhooks).sort(), [...EVENT_TYPES].sort());
  const r = await receiver(t);
  await createEndpoint(h, { url: r.url, events: ['*'] });
  assert.equal((await h.post('/api/clients', { dni: `${Date.now()}`.slice(-8) })).statusCode, 201);
  await runAt(h, new Date());
  const delivery = r.received.find((x) => x.event.type === 'client.created');
  assert.ok(delivery, 'the client.created event was delivered');
  const params = new Set(doc.webhooks['client.created']!.post.parameters.map((p) => p.name.toLowerCase()));
  for (const name of Object.keys(delivery.headers).filter((n) => n.startsWith('lending-')))
    assert.ok(params.has(name), `a delivery carries ${name}, which the webhook does not declare`);
});

test("each webhook's payload is its event's object as EVENT_OBJECTS names it, with its summary", async (t) => {
  const h = await build(t);
  const doc = await documentOf(h);
  const wrong: string[] = [];
  for (const type of EVENT_TYPES) {
    const post = (doc.webhooks as Record<string, any>)[type]?.post;
    const parts: any[] = post?.requestBody?.content?.['application/json']?.schema?.allOf ?? [];
    if (parts[0]?.$ref !== '#/components/schemas/Event') wrong.push(`${type}: not an Event`);
    if (parts[1]?.properties?.type?.const !== type) wrong.push(`${type}: type is not the constant ${type}`);
    // a shared schema by reference, another one inline with the same fields
    const object = EVENT_OBJECTS[type].object as { $id?: string; properties: Record<string, unknown> };
    const declared = parts[1]?.properties?.data?.properties?.object;
    if (declared?.$ref) {
      if (declared.$ref !== `#/components/schemas/${object.$id}`)
        wrong.push(`${type}: data.object is ${declared.$ref}`);
    } else if (
      JSON.stringify(Object.keys(declared?.properties ?? {})) !== JSON.stringify(Object.keys(object.properties))
    )
      wrong.push(`${type}: data.object's fields are not ${Object.keys(object.properties).join(', ')}`);
    if (post?.summary !== EVENT_OBJECTS[type].summary) wrong.push(`${type}: summary ${post?.summary}`);
  }
  assert.deepEqual(wrong, []);
});

test('info.version is the package version, and the changelog has its section', async (t) => {
  const h = await build(t);
  const doc = await documentOf(h);
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.equal(doc.info.version, pkg.version);
  const changelog = readFileSync(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');
  assert.match(changelog, new RegExp(`^## \\[?${pkg.version.replace(/\./g, '\\.')}\\]?`, 'm'));
});
