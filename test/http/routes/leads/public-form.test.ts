// Leads (docs/leads.md):
// POST /public/{business_slug}/leads {first_name, last_name, dni, phone, email, amount_requested,
// message} → 201 {id}, no key; limited per address; a filled hidden field `website` is accepted and
// dropped; businesses gain `slug`; GET /api/leads; POST /api/leads/{id}/convert → 201 Client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { build, type Harness } from '../../../helpers/app.ts';
import { UUID, cli, error, feed, itemsOf, json, objectOf, rows, status } from '../../../helpers/acceptance.ts';

/**
 * The business's slug.
 * ASSUMPTION: `lending businesses list --json` prints the business records, `slug` included.
 */
async function slugOf(h: Harness, businessId = h.tenant.businessId): Promise<string> {
  const r = await cli(h, 'businesses', 'list');
  assert.equal(r.code, 0, r.err);
  const list = rows(r.out, 'lending businesses list');
  const b = list.find((x: any) => x.id === businessId);
  assert.ok(b, 'the business is listed');
  assert.match(b.slug, /^[a-z0-9]+(-[a-z0-9]+)*$/, `a URL-safe slug: ${b.slug}`);
  return b.slug;
}

const lead = (extra: Record<string, unknown> = {}) => ({
  first_name: 'Lucía',
  last_name: 'Gómez',
  dni: String(randomInt(20_000_000, 45_000_000)),
  phone: '+54 351 555-0101',
  email: 'lucia@example.test',
  amount_requested: 150000,
  message: 'Quisiera un préstamo para mi negocio',
  ...extra,
});

function post(h: Harness, slug: string, body: unknown, remoteAddress = '192.0.2.10') {
  return h.app.inject({ method: 'POST', url: `/public/${slug}/leads`, payload: body as object, remoteAddress });
}

async function leads(h: Harness, key?: string): Promise<any[]> {
  return itemsOf(await h.get('/api/leads', key), 'GET /api/leads');
}

test('a lead: 201 {id} without a key, listed for the business, converted into a client once', async (t) => {
  const h = await build(t);
  const slug = await slugOf(h);
  const sent = lead();
  const res = await post(h, slug, sent);
  status(res, 201);
  const body = json(res);
  assert.deepEqual(Object.keys(body), ['id'], 'the public answer is only the id');
  assert.match(body.id, UUID);

  const listed = (await leads(h)).find((l) => l.id === body.id);
  assert.ok(listed, 'listed');
  for (const [k, v] of Object.entries(sent)) assert.equal(listed[k], v, `lead field ${k}`);
  assert.ok(
    (await leads(h, h.tenant.readKey)).some((l) => l.id === body.id),
    'a read key lists leads',
  );

  // another business neither sees nor converts it
  const other = await h.newTenant();
  assert.ok(
    !(await leads(h, other.fullKey)).some((l) => l.id === body.id),
    'holds: !(await leads(h, other.fullKey)).some((l) => l.id === body.id)',
  );
  error(await h.post(`/api/leads/${body.id}/convert`, undefined, other.fullKey), 404, 'not_found');
  error(await h.post(`/api/leads/${body.id}/convert`, undefined, h.tenant.readKey), 403, 'forbidden');

  const conv = await h.post(`/api/leads/${body.id}/convert`, undefined);
  status(conv, 201);
  const c = json(conv);
  assert.match(c.id, UUID);
  assert.deepEqual(
    [c.dni, c.first_name, c.last_name, c.email, c.phone],
    [sent.dni, sent.first_name, sent.last_name, sent.email, sent.phone],
  );
  assert.equal(c.business_id, h.tenant.businessId);
  status(await h.get(`/api/clients/${c.id}`), 200);
  // once: the second conversion conflicts (the lead is converted, the dni exists)
  error(await h.post(`/api/leads/${body.id}/convert`, undefined), 409, 'conflict');
  // the new client is announced like any other
  const created = await feed(h, { types: 'client.created' });
  assert.ok(
    created.some((e) => objectOf(e, 'client').id === c.id),
    'client.created for the converted lead',
  );

  error(await h.post('/api/leads/not-a-uuid/convert'), 404, 'not_found');
  error(await h.get('/api/leads', null), 401, 'unauthorized');
});

test('the public form: unknown business 404, bad fields 400, the honeypot accepted and dropped', async (t) => {
  const h = await build(t);
  const slug = await slugOf(h);
  error(await post(h, `${slug}-nope-${randomInt(1e6)}`, lead()), 404, 'not_found');
  error(await post(h, slug, lead({ amount_requested: '150000' })), 400, 'validation_failed');
  error(await post(h, slug, lead({ email: 'not an email' })), 400, 'validation_failed');
  error(await post(h, slug, lead({ favourite_colour: 'blue' })), 400, 'validation_failed');
  error(
    await h.app.inject({
      method: 'POST',
      url: `/public/${slug}/leads`,
      payload: '{"first_name":',
      headers: { 'content-type': 'application/json' },
    }),
    400,
    'validation_failed',
  );

  const bot = await post(h, slug, lead({ website: 'http://spam.example', first_name: 'Bot' }));
  status(bot, 201, 'the honeypot is accepted');
  const human = await post(h, slug, lead({ website: '' }));
  status(human, 201);
  const ids = (await leads(h)).map((l) => l.id);
  assert.ok(!ids.includes(json(bot).id), 'the honeypot lead is dropped');
  assert.ok(ids.includes(json(human).id), 'an empty hidden field is a person');
  assert.ok(
    !(await leads(h)).some((l) => l.first_name === 'Bot'),
    "holds: !(await leads(h)).some((l) => l.first_name === 'Bot')",
  );
});

test('the public form is limited per address: 429 rate_limited with Retry-After; other addresses go on', {
  timeout: 300_000,
}, async (t) => {
  const h = await build(t);
  const slug = await slugOf(h);
  // ASSUMPTION: the limit's size is not specified; any sane one is reached within 200 posts
  let limited = null;
  let accepted = 0;
  for (let i = 0; i < 200 && !limited; i++) {
    const res = await post(h, slug, lead(), '192.0.2.99');
    if (res.statusCode === 429) limited = res;
    else {
      status(res, 201, `post ${i}`);
      accepted++;
    }
  }
  assert.ok(limited, 'limited');
  error(limited, 429, 'rate_limited');
  assert.match(String(limited.headers['retry-after']), /^\d+$/);
  assert.ok(accepted >= 1, 'holds: accepted >= 1');
  status(await post(h, slug, lead(), '192.0.2.100'), 201, 'another address');
  assert.equal((await leads(h)).length, accepted + 1, 'refused posts stored nothing');
});
