// verifyWebhook (sdk/webhooks.ts) against real deliveries of the server (test/helpers/webhooks.ts):
// the body and Lending-Signature as received are accepted; a changed body, a changed signature,
// another secret, a stale timestamp or a malformed header are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIGNATURE_HEADER, verifyWebhook } from '../../sdk/index.ts';
import { build, json } from '../helpers/app.ts';
import { createEndpoint, receiver, runAt } from '../helpers/webhooks.ts';

const PRIVATE = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '60000' };

test('verifyWebhook accepts a real signed delivery and refuses a tampered one', async (t) => {
  const h = await build(t, { env: PRIVATE });
  const r = await receiver(t);
  const { secret } = await createEndpoint(h, { url: r.url, events: ['client.created'] });
  const created = await h.post('/api/clients', { dni: '30123456', first_name: 'Ana' });
  assert.equal(created.statusCode, 201, created.body);
  const sentAt = new Date();
  const pass = await runAt(h, sentAt);
  assert.equal(pass.delivered, 1);
  const [d] = r.received;
  const header = d!.headers[SIGNATURE_HEADER] as string;
  assert.match(header, /^t=\d+,v1=[0-9a-f]{64}$/);
  assert.equal(d!.event.data.object.id, json(created).id);

  assert.equal(await verifyWebhook(d!.body, header, secret), true);
  assert.equal(await verifyWebhook(Buffer.from(d!.body), [header], secret), true, 'the raw bytes, a header array');
  assert.equal(await verifyWebhook(new TextEncoder().encode(d!.body).buffer, header, secret), true);

  const tampered = d!.body.replace('"Ana"', '"Eva"');
  assert.notEqual(tampered, d!.body);
  assert.equal(await verifyWebhook(tampered, header, secret), false, 'a changed body');
  assert.equal(
    await verifyWebhook(JSON.stringify(JSON.parse(d!.body), null, 1), header, secret),
    false,
    're-serialized',
  );
  const sig = header.slice(-64);
  const flipped = header.slice(0, -64) + (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1);
  assert.equal(await verifyWebhook(d!.body, flipped, secret), false, 'a changed signature');
  assert.equal(await verifyWebhook(d!.body, header, `${secret}x`), false, 'another secret');
  const t0 = Number(/t=(\d+)/.exec(header)![1]);
  assert.equal(await verifyWebhook(d!.body, header.replace(`t=${t0}`, `t=${t0 + 1}`), secret), false, 'another t');
  // the timestamp: within 5 minutes by default, or the tolerance given
  assert.equal(await verifyWebhook(d!.body, header, secret, { now: (t0 + 299) * 1000 }), true);
  assert.equal(await verifyWebhook(d!.body, header, secret, { now: (t0 + 301) * 1000 }), false, 'stale');
  assert.equal(await verifyWebhook(d!.body, header, secret, { now: (t0 - 301) * 1000 }), false, 'from the future');
  assert.equal(await verifyWebhook(d!.body, header, secret, { now: (t0 + 3600) * 1000, toleranceSeconds: 7200 }), true);
  for (const bad of [undefined, null, '', 'v1=abc', `t=${t0}`, `t=x,v1=${sig}`, `t=${t0},v1=${sig.slice(2)}`]) {
    assert.equal(await verifyWebhook(d!.body, bad, secret), false, String(bad));
  }
  // a header with a second signature (a rotated secret): any v1 that matches
  assert.equal(await verifyWebhook(d!.body, `${header},v1=${'0'.repeat(64)}`, secret), true);
});
