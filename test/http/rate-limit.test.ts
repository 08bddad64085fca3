import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../helpers/app.ts';

test('beyond RATE_LIMIT a minute a key gets 429 rate_limited with Retry-After; other keys are unaffected', async (t) => {
  const h = await build(t, { env: { RATE_LIMIT: '3' } });
  for (let i = 0; i < 3; i++) assert.equal((await h.get('/api/branches')).statusCode, 200);
  const limited = await h.get('/api/branches');
  assert.equal(limited.statusCode, 429);
  assert.equal(json(limited).code, 'rate_limited');
  assert.ok(Number(limited.headers['retry-after']) > 0, "holds: Number(limited.headers['retry-after']) > 0");
  assert.equal((await h.get('/api/branches', h.tenant.readKey)).statusCode, 200);
});
