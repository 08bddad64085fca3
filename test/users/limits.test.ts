// Failed sign-ins are limited per email and per client address (LOGIN_FAILURES_PER_EMAIL,
// LOGIN_FAILURES_PER_ADDRESS within LOGIN_FAILURE_WINDOW_MINUTES): beyond, 429 with Retry-After
// until the window ends, whatever the password. The clock is the test's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../helpers/app.ts';
import { PASSWORD, newUser, signIn, someAddress } from '../helpers/sessions.ts';

test('per email: after 5 failures, 429 with Retry-After even with the right password, until the window ends', async (t) => {
  const clock = settableClock(new Date('2026-03-20T12:00:00Z'));
  const h = await build(t, { clock });
  const u = await newUser(h, h.tenant.businessId, 'viewer');
  for (let i = 0; i < 5; i++) {
    const r = await signIn(h, u.email, 'wrong password!!', {}, someAddress());
    assert.equal(r.statusCode, 401, r.body);
    assert.equal(json(r).code, 'unauthorized');
  }
  clock.set(new Date('2026-03-20T12:05:00Z'));
  const locked = await signIn(h, u.email.toUpperCase(), PASSWORD, {}, someAddress());
  assert.equal(locked.statusCode, 429, locked.body);
  assert.equal(json(locked).code, 'rate_limited');
  assert.equal(locked.headers['retry-after'], '600'); // the window started at 12:00 and lasts 15 minutes
  clock.set(new Date('2026-03-20T12:15:00Z'));
  assert.equal((await signIn(h, u.email, PASSWORD, {}, someAddress())).statusCode, 200);
  // a success forgets the email's failures
  for (let i = 0; i < 4; i++) await signIn(h, u.email, 'wrong password!!', {}, someAddress());
  assert.equal((await signIn(h, u.email, PASSWORD, {}, someAddress())).statusCode, 200);
  assert.equal((await signIn(h, u.email, 'wrong password!!', {}, someAddress())).statusCode, 401);
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
  assert.ok(Number(locked.headers['retry-after']) > 0);
  // another address is not concerned
  assert.equal((await signIn(h, u.email, PASSWORD, {}, someAddress())).statusCode, 200);
  clock.set(new Date('2026-03-20T12:15:00Z'));
  assert.equal((await signIn(h, u.email, PASSWORD, {}, here)).statusCode, 200);
});

test('attempts sent at once cannot slip past the limit: each is counted before its password is checked', async (t) => {
  const h = await build(t);
  const u = await newUser(h, h.tenant.businessId, 'viewer');
  const all = await Promise.all(
    Array.from({ length: 12 }, () => signIn(h, u.email, 'wrong password!!', {}, someAddress())),
  );
  const codes = all.map((r) => r.statusCode).sort();
  assert.equal(codes.filter((c) => c === 401).length, 5, codes.join());
  assert.equal(codes.filter((c) => c === 429).length, 7, codes.join());
});
