// The lead form's own limit per client address (LEADS_RATE_LIMIT_PER_HOUR): the requests beyond
// it are 429 with Retry-After in the Error body, before the body is read; the hidden field's
// requests count too; another address has its own count; the other public routes and the API are
// not affected; 0 turns it off. The per-minute public limit still applies on top.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../../../src/config.ts';
import { build, json } from '../../../helpers/app.ts';
import { assertErrorBody } from '../../../helpers/security.ts';
import { aLead, slugOf, submit } from './helpers.ts';

test('LEADS_RATE_LIMIT_PER_HOUR forms an hour per address, then 429 with Retry-After; another address is counted apart', async (t) => {
  const h = await build(t, { env: { LEADS_RATE_LIMIT_PER_HOUR: '3', PUBLIC_RATE_LIMIT: '0' } });
  const slug = await slugOf(h, h.tenant.businessId);
  const from = '198.51.100.7';
  assert.equal((await submit(h, slug, aLead(), from)).statusCode, 201);
  assert.equal((await submit(h, slug, aLead({ website: 'spam' }), from)).statusCode, 201, 'the hidden field counts');
  assert.equal((await submit(h, slug, { first_name: 'x' }, from)).statusCode, 400, 'so does a bad request');

  const over = await submit(h, slug, aLead(), from);
  assertErrorBody(over, 429, 'rate_limited', 'the fourth form of the hour');
  const retry = Number(over.headers['retry-after']);
  assert.ok(retry > 0 && retry <= 3600, `Retry-After ${over.headers['retry-after']}`);
  assert.match(json(over).error, /at most 3 an hour; retry in \d+ s/);
  // counted before the slug is looked up or the body read
  assertErrorBody(await submit(h, 'no-such-business', aLead(), from), 429, 'rate_limited', 'unknown slug');
  assertErrorBody(
    await h.app.inject({ method: 'POST', url: `/public/${slug}/leads`, payload: 'not json', remoteAddress: from }),
    429,
    'rate_limited',
    'a body that is not JSON',
  );

  // another address, IPv4 or IPv6, has its own count
  assert.equal((await submit(h, slug, aLead(), '198.51.100.8')).statusCode, 201);
  assert.equal((await submit(h, slug, aLead(), '2001:db8:1::1')).statusCode, 201);
  // an IPv6 address counts by its /64: the same subscriber's other addresses share the count
  assert.equal((await submit(h, slug, aLead(), '2001:db8:1::2')).statusCode, 201);
  assert.equal((await submit(h, slug, aLead(), '2001:db8:1::3')).statusCode, 201);
  assert.equal((await submit(h, slug, aLead(), '2001:db8:1::4')).statusCode, 429);
  assert.equal((await submit(h, slug, aLead(), '2001:db8:2::1')).statusCode, 201, 'another /64');

  // only the form is limited so: the upload links and the API answer that address as before
  const upload = await h.app.inject({ method: 'POST', url: `/upload/ul_${'x'.repeat(43)}`, remoteAddress: from });
  assert.equal(upload.statusCode, 404, upload.body);
  assert.equal((await h.get('/api/leads')).statusCode, 200);
  assert.equal(json(await h.get('/api/leads')).total, 6, 'the stored ones');
});

test('the per-minute public limit applies to the form too; LEADS_RATE_LIMIT_PER_HOUR=0 leaves it alone', async (t) => {
  const h = await build(t, { env: { LEADS_RATE_LIMIT_PER_HOUR: '0', PUBLIC_RATE_LIMIT: '4' } });
  const slug = await slugOf(h, h.tenant.businessId);
  for (let i = 0; i < 4; i++) assert.equal((await submit(h, slug, aLead(), '203.0.113.1')).statusCode, 201);
  const over = await submit(h, slug, aLead(), '203.0.113.1');
  assertErrorBody(over, 429, 'rate_limited', 'the fifth request of the minute');
  assert.match(json(over).error, /a minute/);
  assert.ok(Number(over.headers['retry-after']) <= 60, "holds: Number(over.headers['retry-after']) <= 60");
});

test('with both limits off, the form takes any number of requests from one address', async (t) => {
  const h = await build(t, { env: { LEADS_RATE_LIMIT_PER_HOUR: '0', PUBLIC_RATE_LIMIT: '0' } });
  const slug = await slugOf(h, h.tenant.businessId);
  for (let i = 0; i < 25; i++) assert.equal((await submit(h, slug, aLead({ website: 'x' }))).statusCode, 201);
});

test('LEADS_RATE_LIMIT_PER_HOUR: 10 by default, a whole number, 0 for none', () => {
  assert.equal(loadConfig({}).leadsRateLimitPerHour, 10);
  assert.equal(loadConfig({ LEADS_RATE_LIMIT_PER_HOUR: '25' }).leadsRateLimitPerHour, 25);
  assert.equal(loadConfig({ LEADS_RATE_LIMIT_PER_HOUR: '0' }).leadsRateLimitPerHour, 0);
  for (const bad of ['-1', 'ten', '1.5'])
    assert.throws(() => loadConfig({ LEADS_RATE_LIMIT_PER_HOUR: bad }), ConfigError, bad);
});
