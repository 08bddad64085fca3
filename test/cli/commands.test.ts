// The command line without a server: businesses and keys (create, list, revoke), demo, migrate,
// --json printing exactly one JSON document, usage errors and unusable configuration values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { baseEnv, modeEnv, run, runJson, tempDataDir } from '../helpers/cli-process.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test('businesses and keys: create, list and revoke, each --json one document, secrets shown once', {
  timeout: 300_000,
}, async (t) => {
  const env = baseEnv(modeEnv(t));
  const name = `CLI business ${randomUUID().slice(0, 8)}`;
  const biz = await runJson(['businesses', 'create', '--name', name, '--timezone', 'America/Argentina/Cordoba'], env);
  assert.match(biz.id, UUID);
  assert.equal(biz.name, name);
  assert.equal(biz.timezone, 'America/Argentina/Cordoba');

  const list = await runJson<{ id: string; name: string }[]>(['businesses', 'list'], env);
  assert.ok(Array.isArray(list), 'list is an array');
  assert.equal(list.filter((b) => b.id === biz.id).length, 1);

  const full = await runJson(['keys', 'create', '--business', biz.id, '--scope', 'full', '--name', 'erp'], env);
  assert.match(full.id, UUID);
  assert.equal(full.scope, 'full');
  assert.equal(full.name, 'erp');
  assert.equal(full.business_id, biz.id);
  assert.match(full.key, /^lk_full_[A-Za-z0-9_-]{43,}$/);
  assert.equal(full.revoked_at, null);
  assert.ok(!('key_hash' in full), 'full has no key_hash');
  // the human form prints the secret once too
  const human = await run(['keys', 'create', '--business', biz.id, '--scope', 'read'], env);
  assert.equal(human.code, 0, human.stderr);
  const readKey = /lk_read_[A-Za-z0-9_-]{43,}/.exec(human.stdout)?.[0];
  assert.ok(readKey, human.stdout);

  const keys = await runJson<{ id: string; scope: string; revoked_at: string | null }[]>(
    ['keys', 'list', '--business', biz.id],
    env,
  );
  assert.deepEqual(keys.map((k) => k.scope).sort(), ['full', 'read']);
  const listed = JSON.stringify(keys);
  assert.ok(!listed.includes(full.key) && !listed.includes(readKey!), 'keys list never prints a secret');
  assert.ok(
    keys.every((k) => !('key' in k) && !('key_hash' in k)),
    "every k of keys: !('key' in k) && !('key_hash' in k)",
  );
  const humanList = await run(['keys', 'list', '--business', biz.id], env);
  assert.equal(humanList.code, 0);
  assert.ok(
    !humanList.stdout.includes(full.key.slice(16)) && !humanList.stdout.includes(readKey!.slice(16)),
    'the human-readable key list shows no key in full',
  );

  const revoked = await runJson(['keys', 'revoke', full.id], env);
  assert.equal(revoked.id, full.id);
  assert.ok(revoked.revoked_at, 'revoked.revoked_at is set');
  assert.ok(!JSON.stringify(revoked).includes(full.key), 'JSON.stringify(revoked) does not include full.key');
  const again = await runJson<{ id: string; revoked_at: string | null }[]>(['keys', 'list', '--business', biz.id], env);
  assert.equal(again.find((k) => k.id === full.id)?.revoked_at, revoked.revoked_at);
  assert.equal(again.find((k) => k.id !== full.id)?.revoked_at, null);

  // usage errors: a clear line on stderr, nothing on stdout, a non-zero exit
  for (const args of [
    ['keys', 'create', '--business', biz.id, '--scope', 'admin'],
    ['keys', 'create', '--business', 'not-a-uuid', '--scope', 'read'],
    ['keys', 'create', '--business', randomUUID(), '--scope', 'read'],
    ['keys', 'create', '--scope', 'read'],
    ['keys', 'list', '--business', randomUUID()],
    ['keys', 'revoke', randomUUID()],
    ['keys', 'revoke', 'nope'],
    ['businesses', 'create'],
    ['businesses', 'create', '--name', 'x', '--timezone', 'Mars/Olympus'],
    ['businesses', 'create', '--name', '   '],
    ['no-such-command'],
  ]) {
    const r = await run([...args, '--json'], env);
    assert.notEqual(r.code, 0, `${args.join(' ')} should fail: ${r.stdout}`);
    assert.equal(r.stdout, '', `${args.join(' ')} printed on stdout: ${r.stdout}`);
    assert.ok(r.stderr.trim().length > 0, `${args.join(' ')} says why`);
  }
});

test('demo creates a business with keys that are printed once; migrate is idempotent', {
  timeout: 300_000,
}, async (t) => {
  const env = baseEnv(modeEnv(t));
  const m1 = await runJson<{ applied: string[] }>(['migrate'], env);
  assert.ok(Array.isArray(m1.applied), 'm1.applied is an array');
  const m2 = await runJson<{ applied: string[] }>(['migrate'], env);
  assert.deepEqual(m2.applied, []);

  const demo = await runJson(['demo'], env);
  assert.match(demo.business.id, UUID);
  assert.match(demo.keys.full, /^lk_full_/);
  assert.match(demo.keys.read, /^lk_read_/);
  const keys = await runJson<{ scope: string }[]>(['keys', 'list', '--business', demo.business.id], env);
  assert.deepEqual(keys.map((k) => k.scope).sort(), ['full', 'read']);
  assert.ok(!JSON.stringify(keys).includes(demo.keys.full), 'JSON.stringify(keys) does not include demo.keys.full');
});

test('an unusable configuration value stops any command with one clear line and a non-zero exit', {
  timeout: 300_000,
}, async (t) => {
  const dataDir = tempDataDir(t);
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ PORT: '-1' }, /PORT/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ ACCRUAL_SCHEDULE: 'nonsense' }, /ACCRUAL_SCHEDULE/],
    [{ ACCRUAL_SCHEDULE: '99 99 * * *' }, /ACCRUAL_SCHEDULE/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL/],
    [{ MAX_FILE_BYTES: 'lots' }, /MAX_FILE_BYTES/],
    [{ PUBLIC_RATE_LIMIT: 'many' }, /PUBLIC_RATE_LIMIT/],
  ];
  for (const [vars, mentions] of cases) {
    for (const args of [['serve'], ['businesses', 'list', '--json']]) {
      const r = await run(args, baseEnv({ DATA_DIR: dataDir, ...vars, LOG_LEVEL: vars.LOG_LEVEL ?? 'silent' }));
      const what = `${JSON.stringify(vars)} ${args.join(' ')}`;
      assert.notEqual(r.code, 0, what);
      assert.equal(r.code === null, false, `${what}: killed instead of exiting`);
      assert.equal(r.stdout, '', `${what}: stdout ${r.stdout}`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `${what}: one line, got ${r.stderr}`);
      assert.match(lines[0]!, mentions, what);
    }
  }
});
