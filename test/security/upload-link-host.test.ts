// Upload links are never built from an untrusted Host: PUBLIC_URL when set;
// else, behind a trusted proxy (TRUST_PROXY), the forwarded scheme and host; else the address the
// server listens on. `Host: evil.example` never reaches a link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { build, json, type Harness } from '../helpers/app.ts';
import { serve } from '../helpers/server.ts';

const EVIL = { host: 'evil.example', 'x-forwarded-host': 'evil-forwarded.example', 'x-forwarded-proto': 'https' };

async function linkUrl(h: Harness, headers: Record<string, string> = {}, remoteAddress?: string): Promise<string> {
  const c = json(await h.post('/api/clients', { dni: `ul-${Math.random().toString(36).slice(2, 10)}` }));
  const res = await h.req({
    method: 'POST',
    url: `/api/clients/${c.id}/upload-sessions`,
    headers,
    ...(remoteAddress ? { remoteAddress } : {}),
  });
  assert.equal(res.statusCode, 201, res.body);
  const link = json(res);
  assert.ok(link.upload_url.endsWith(`/upload/${link.token}`), link.upload_url);
  return link.upload_url.slice(0, -`/upload/${link.token}`.length);
}

test('without PUBLIC_URL or TRUST_PROXY, a link is built on the listen address, whatever the Host and forwarded headers say', async (t) => {
  assert.equal(await linkUrl(await build(t), EVIL), 'http://127.0.0.1:3000');
  assert.equal(
    await linkUrl(await build(t, { env: { HOST: '0.0.0.0', PORT: '4000' } }), EVIL),
    'http://127.0.0.1:4000',
  );
  assert.equal(await linkUrl(await build(t, { env: { HOST: '::1', PORT: '4000' } }), EVIL), 'http://[::1]:4000');
  assert.equal(
    await linkUrl(await build(t, { env: { HOST: 'lending.internal', PORT: '80' } }), EVIL),
    'http://lending.internal:80',
  );
});

test('a listening server builds links on the port it is bound to', { timeout: 60_000 }, async (t) => {
  const s = await serve(t, { PORT: '0' });
  const c = await s.call('POST', '/api/clients', { dni: 'ul-listen-1' });
  const res = await fetch(s.url(`/api/clients/${c.body.id}/upload-sessions`), {
    method: 'POST',
    headers: { authorization: `Bearer ${s.tenant.fullKey}`, 'x-forwarded-host': 'evil.example' },
  });
  const link = (await res.json()) as { upload_url: string; token: string };
  assert.equal(link.upload_url, `http://127.0.0.1:${s.port}/upload/${link.token}`);
});

test('PUBLIC_URL, when set, is the base of every link, proxy or not', async (t) => {
  const h = await build(t, { env: { PUBLIC_URL: 'https://lend.example.com', TRUST_PROXY: 'true' } });
  assert.equal(await linkUrl(h, EVIL), 'https://lend.example.com');
});

test('with TRUST_PROXY, a trusted hop forwards the scheme and host; an untrusted one or no X-Forwarded-Host falls back to the listen address', async (t) => {
  const all = await build(t, { env: { TRUST_PROXY: 'true' } });
  assert.equal(
    await linkUrl(all, { host: 'internal:3000', 'x-forwarded-host': 'lend.example', 'x-forwarded-proto': 'https' }),
    'https://lend.example',
  );
  assert.equal(
    await linkUrl(all, { host: 'evil.example' }),
    'http://127.0.0.1:3000',
    'no forwarded host: Host is not used',
  );

  const hops = await build(t, { env: { TRUST_PROXY: '1' } });
  assert.equal(
    await linkUrl(hops, { 'x-forwarded-host': 'lend.example', 'x-forwarded-proto': 'https' }),
    'https://lend.example',
  );

  const listed = await build(t, { env: { TRUST_PROXY: '10.0.0.0/8, 192.168.1.7' } });
  assert.equal(
    await linkUrl(listed, EVIL, '127.0.0.1'),
    'http://127.0.0.1:3000',
    'a peer outside the list is not a proxy',
  );
  assert.equal(
    await linkUrl(listed, { ...EVIL, 'x-forwarded-host': 'lend.example' }, '10.1.2.3'),
    'https://lend.example',
  );
  assert.equal(
    await linkUrl(listed, { ...EVIL, 'x-forwarded-host': 'lend.example' }, '192.168.1.7'),
    'https://lend.example',
  );
  assert.equal(await linkUrl(listed, EVIL, '192.168.1.8'), 'http://127.0.0.1:3000');
});

test('TRUST_PROXY is true, a hop count or a list of addresses and CIDRs; anything else stops start-up', () => {
  assert.equal(loadConfig({}).trustProxy, null);
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, null);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8' }).trustProxy, [
    '10.0.0.0/8',
    '127.0.0.1',
    'fd00::/8',
  ]);
  for (const bad of ['yes', '10.0.0.0/33', '300.1.1.1', 'proxy.example', '10.0.0.0/8,,', '-1', 'fd00::/129']) {
    assert.throws(() => loadConfig({ TRUST_PROXY: bad }), ConfigError, bad);
  }
});
