// `lending operators create` and `lending users create` through the real command line: each
// prints the account and its one-time set-password link (PUBLIC_URL, else http://HOST:PORT), and
// --json exactly one JSON document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { baseEnv, modeEnv, run, runJson } from '../helpers/cli-process.ts';

const LINK = /\/set-password#token=sp_[A-Za-z0-9_-]{43}$/;

test('operators create and users create print a set-password link; usage errors are clear', {
  timeout: 300_000,
}, async (t) => {
  const env = baseEnv(modeEnv(t));
  const tag = randomUUID().slice(0, 8);
  const op = await runJson(['operators', 'create', '--email', `Ops-${tag}@Platform.example`, '--name', 'Ops'], env);
  assert.equal(op.email, `ops-${tag}@platform.example`);
  assert.ok(op.set_password_url.startsWith('http://127.0.0.1:3000/set-password#token='), op.set_password_url);
  assert.match(op.set_password_url, LINK);
  assert.ok(
    Date.parse(op.set_password_expires_at) > Date.now() + 71 * 3_600_000,
    'holds: Date.parse(op.set_password_expires_at) > Date.now() + 71 * 3_600_000',
  );
  assert.ok(!('password_hash' in op), 'op has no password_hash');

  const biz = await runJson(['businesses', 'create', '--name', `Users ${tag}`], env);
  const withUrl = { ...env, PUBLIC_URL: 'https://lending.example.com/' };
  const user = await runJson(
    ['users', 'create', '--business', biz.id, '--email', `admin-${tag}@b.example`, '--role', 'admin'],
    withUrl,
  );
  assert.equal(user.role, 'admin');
  assert.equal(user.business_id, biz.id);
  assert.ok(user.set_password_url.startsWith('https://lending.example.com/set-password#token='), user.set_password_url);

  const human = await run(
    [
      'users',
      'create',
      '--business',
      biz.id,
      '--email',
      `viewer-${tag}@b.example`,
      '--role',
      'viewer',
      '--name',
      'Vera',
    ],
    { ...env, HOST: '0.0.0.0', PORT: '8080' },
  );
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /set-password link {2}http:\/\/127\.0\.0\.1:8080\/set-password#token=sp_/);
  assert.match(human.stdout, /viewer/);

  for (const [args, message] of [
    [
      ['users', 'create', '--business', biz.id, '--email', `x-${tag}@b.example`, '--role', 'owner'],
      /--role must be one of/,
    ],
    [
      ['users', 'create', '--business', 'nope', '--email', `x-${tag}@b.example`, '--role', 'viewer'],
      /--business must be a uuid/,
    ],
    [
      ['users', 'create', '--business', biz.id, '--email', `ADMIN-${tag}@b.example`, '--role', 'viewer'],
      /already exists/,
    ],
    [['users', 'create', '--business', biz.id, '--email', 'not-an-email', '--role', 'viewer'], /email/],
    [['operators', 'create', '--email', `ops-${tag}@platform.example`], /already exists/],
  ] as const) {
    const r = await run([...args], env);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '');
  }
});
