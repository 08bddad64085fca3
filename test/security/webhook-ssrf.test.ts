// The URL rule of webhooks (docs/webhooks.md, "The URL rule": https:// and public addresses; WEBHOOK_ALLOW_PRIVATE=true for
// tests and private networks): checked when an endpoint is created or changed, and again at each
// delivery against a fresh resolution, whose checked address is the one connected to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../helpers/app.ts';
import { announce, createEndpoint, deliveries, receiver, runAt } from '../helpers/webhooks.ts';
import { isPublicAddress, type Resolver } from '../../src/services/webhookTargets.ts';

test('addresses: only public unicast ones are public, IPv4-mapped IPv6 counting as its IPv4 address', () => {
  const internal = [
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254', // cloud metadata
    '100.64.0.1', // carrier-grade NAT
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.251',
    '192.0.2.10', // documentation
    '198.18.0.1', // benchmarking
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1', // NAT64 of 10.0.0.1
    '2002:7f00:1::1', // 6to4 of 127.0.0.1
    '2001:db8::1',
    'not an address',
    '',
  ];
  for (const a of internal) assert.equal(isPublicAddress(a), false, a);
  for (const a of ['8.8.8.8', '93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1'])
    assert.equal(isPublicAddress(a), true, a);
});

// one sentence for every refused address, whatever the host resolved to (docs/security.md): the
// answer does not map the server's network; the reason is in the server's log
const GENERIC = /^url: must be an https:\/\/ URL whose host resolves, only to public addresses$/;

test('without WEBHOOK_ALLOW_PRIVATE: http://, loopback, private, link-local and names that resolve to them are refused, on creation and change', async (t) => {
  const h = await build(t);
  const refused: [string, number, RegExp][] = [
    ['http://93.184.215.14/hooks', 400, /https:\/\//],
    ['https://127.0.0.1/hooks', 422, GENERIC],
    ['https://127.1/hooks', 422, GENERIC],
    ['https://2130706433/hooks', 422, GENERIC],
    ['https://10.1.2.3/hooks', 422, GENERIC],
    ['https://192.168.0.10:8443/hooks', 422, GENERIC],
    ['https://169.254.169.254/latest/meta-data', 422, GENERIC],
    ['https://100.64.1.1/', 422, GENERIC],
    ['https://0.0.0.0/', 422, GENERIC],
    ['https://[::1]/hooks', 422, GENERIC],
    ['https://[::ffff:127.0.0.1]/hooks', 422, GENERIC],
    ['https://[fd00::5]/hooks', 422, GENERIC],
    ['https://localhost/hooks', 422, GENERIC],
    ['https://localhost.:8443/hooks', 422, GENERIC],
    ['https://no-such-host.invalid/hooks', 422, GENERIC],
    ['https://user:secret@93.184.215.14/hooks', 400, /user name or password/],
  ];
  for (const [url, status, message] of refused) {
    const res = await h.post('/api/webhook-endpoints', { url, events: ['*'] });
    assert.equal(res.statusCode, status, `${url}: ${res.body}`);
    const b = json(res);
    assert.equal(b.code, status === 400 ? 'validation_failed' : 'unprocessable');
    assert.match(b.error, message, url);
    assert.deepEqual(
      b.details.map((d: { path: string }) => d.path),
      ['/url'],
    );
  }
  assert.deepEqual(json(await h.get('/api/webhook-endpoints')), []);

  // a public address literal needs no resolution: accepted
  const ok = await h.post('/api/webhook-endpoints', { url: 'https://93.184.215.14/hooks', events: ['*'] });
  assert.equal(ok.statusCode, 201, ok.body);
  const id = json(ok).endpoint.id;
  // and the same rule on a change
  for (const [url, status] of [
    ['http://93.184.215.14/hooks', 400],
    ['https://127.0.0.1/x', 422],
    ['https://localhost/x', 422],
    ['https://[::1]/x', 422],
  ] as const) {
    const res = await h.put(`/api/webhook-endpoints/${id}`, { url });
    assert.equal(res.statusCode, status, `${url}: ${res.body}`);
  }
  assert.equal(json(await h.get(`/api/webhook-endpoints/${id}`)).url, 'https://93.184.215.14/hooks');
});

test('with WEBHOOK_ALLOW_PRIVATE=true: http:// and loopback addresses are accepted', async (t) => {
  const h = await build(t, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '60000' } });
  for (const url of ['http://127.0.0.1:9/x', 'http://localhost:9/x', 'https://10.0.0.1/x', 'http://[::1]:9/x']) {
    const res = await h.post('/api/webhook-endpoints', { url, events: ['*'] });
    assert.equal(res.statusCode, 201, `${url}: ${res.body}`);
  }
  // still http(s) only, and no credentials
  assert.equal((await h.post('/api/webhook-endpoints', { url: 'file:///etc/passwd', events: ['*'] })).statusCode, 400);
  assert.equal(
    (await h.post('/api/webhook-endpoints', { url: 'http://a:b@127.0.0.1/', events: ['*'] })).statusCode,
    400,
  );
});

test('each delivery resolves the host again and connects only to a checked address: a name rebound to loopback reaches nothing', async (t) => {
  // the endpoint was accepted while its name resolved to a public address (here: created under
  // the flag, then delivered without it, by a process with the rule and this resolver)
  const h = await build(t, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '60000' } });
  const r = await receiver(t);
  const port = new URL(r.url).port;
  const { endpoint } = await createEndpoint(h, { url: `http://hooks.example.test:${port}/hooks`, events: ['*'] });
  await announce(h, [{ type: 'client.created' }]);
  const rebound: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
  const strict = { ...h.config, webhookAllowPrivate: false };
  const now = new Date();
  await runAt(h, now, { config: strict, resolve: rebound });
  let [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'pending');
  assert.equal(d!.attempt, 1);
  assert.equal(d!.status_code, null);
  assert.match(d!.error!, /^refused: the URL must be an https:\/\/ URL/);
  assert.equal(r.received.length, 0);

  // an https URL whose name now resolves to loopback: refused before connecting
  await h.put(`/api/webhook-endpoints/${endpoint.id}`, { url: `https://hooks.example.test:${port}/hooks` });
  await runAt(h, new Date(now.getTime() + 60_000), { config: strict, resolve: rebound });
  [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.attempt, 2);
  assert.equal(d!.error!, 'refused: the URL must be an https:// URL whose host resolves, only to public addresses');
  // one public and one internal address: refused too (every address must be public)
  const mixed: Resolver = async () => [
    { address: '93.184.215.14', family: 4 },
    { address: '10.0.0.7', family: 4 },
  ];
  await runAt(h, new Date(now.getTime() + 10 * 60_000), { config: strict, resolve: mixed });
  [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.attempt, 3);
  assert.doesNotMatch(d!.error!, /10\.0\.0\.7/);
  assert.match(d!.error!, /^refused: the URL must be an https:\/\/ URL whose host resolves/);
  assert.equal(r.received.length, 0, 'the receiver on loopback was never reached');

  // under the flag, the same name (resolved by the system: not found) is not pinned; back to the
  // receiver's literal address, it is delivered
  await h.put(`/api/webhook-endpoints/${endpoint.id}`, { url: r.url });
  await runAt(h, new Date(now.getTime() + 60 * 60_000));
  [d] = await deliveries(h, endpoint.id);
  assert.equal(d!.status, 'delivered');
  assert.equal(r.received.length, 1);
});
