// Failed sign-ins are limited per account and per client address (LOGIN_FAILURES_PER_ACCOUNT,
// LOGIN_FAILURES_PER_ADDRESS within LOGIN_FAILURE_WINDOW_MINUTES; docs/security.md): an address
// that failed on an account over its limit waits a doubling delay, 429 meanwhile; an address over
// its own limit gets 429 until the window ends. The clock is the test's own. The attacks these
// limits answer are replayed in test/security/accounts.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../../helpers/app.ts';
import { PASSWORD, newUser, signIn, someAddress } from '../../../helpers/sessions.ts';

test('per account: after 5 failures the failing address waits with Retry-After, any case of the email; the window forgets', async (t) => {
  const clock = settableClock(new Date('2026-03-20T12:00:00Z'));
  const h = await build(t, { clock });
  const u = await newUser(h, h.tenant.businessId, 'viewer');
  const here = someAddress();
  for (let i = 0; i < 5; i++) {
    const r = await signIn(h, u.email, 'wrong password!!', {}, here);
    assert.equal(r.statusCode, 401, r.body);
    assert.equal(json(r).code, 'unauthorized');
  }
  const waits = await signIn(h, u.email.toUpperCase(), PASSWORD, {}, here);
  assert.equal(waits.statusCode, 429, waits.body);
  assert.equal(json(waits).code, 'rate_limited');
  assert.equal(waits.headers['retry-after'], '1');
  // the window over, the account's failures are forgotten
  clock.set(new Date('2026-03-20T12:15:00Z'));
  assert.equal((await signIn(h, u.email, PASSWORD, {}, here)).statusCode, 200);
  // a success forgets the account's failures
  for (let i = 0; i < 4; i++) await signIn(h, u.email, 'wrong password!!', {}, here);
  assert.equal((await signIn(h, u.email, PASSWORD, {}, here)).statusCode, 200);
  assert.equal((await signIn(h, u.email, 'wrong password!!', {}, here)).statusCode, 401);
});

test('per address: failures for any emails from one address count together; a success takes its own attempt back', async (t) => {
  const clock = settableClock(new Date('2026-03-20T12:00:00Z'));
  const h = await build(t, { clock, env: { LOGIN_FAILURES_PER_ADDRESS: '3' } });
  const u = await newUser(h, h.tenant.businessId, 'viewer');
  const here = someAddress();
  assert.equal((await signIn(h, 'nobody-1@test.example', PASSWORD, {}, here)).statusCode, 401);
  assert.equal((await signIn(h, 'nobody-2@test.example', PASSWORD, {}, here)).statusCode, 401);
  assert.equal((await signIn(h, u.email, PASSWORD, {}, here)).statusCode, 200);
  assert.equal((await signIn(h, 'nobody-3@test.example', PASSWORD, {}, here)).statusCode, 401);
  const locked = await signIn(h, u.email, PASSWORD, {}, here);
  assert.equal(locked.statusCode, 429);
  assert.ok(Number(locked.headers['retry-after']) > 0, "holds: Number(locked.headers['retry-after']) > 0");
  // another address is not concerned
  assert.equal((await signIn(h, u.email, PASSWORD, {}, someAddress())).statusCode, 200);
  clock.set(new Date('2026-03-20T12:15:00Z'));
  assert.equal((await signIn(h, u.email, PASSWORD, {}, here)).statusCode, 200);
});

test('attempts sent at once from one address cannot slip past its limit: each is counted before its password is checked', async (t) => {
  const h = await build(t, { env: { LOGIN_FAILURES_PER_ADDRESS: '5' } });
  const here = someAddress();
  const all = await Promise.all(
    Array.from({ length: 12 }, (_, i) => signIn(h, `nobody-${i}@test.example`, 'wrong password!!', {}, here)),
  );
  const codes = all.map((r) => r.statusCode).sort();
  assert.equal(codes.filter((c) => c === 401).length, 5, codes.join());
  assert.equal(codes.filter((c) => c === 429).length, 7, codes.join());
});
