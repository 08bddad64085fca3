// The server as people start it, and the command line beside it. Embedded: `npm start` on an empty
// data directory creates the demo and prints its keys and the docs URL; while the server holds the
// data directory the command line is forwarded to it over the admin socket, a key revoked there is
// refused at once, and a second server on the same directory refuses to start. PostgreSQL: the
// server never creates data by itself and the command line works beside it directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { testDbKind } from '../helpers/db.ts';
import { baseEnv, emptyPostgres, run, runJson, startServer, tempDataDir } from '../helpers/cli-process.ts';

const embedded = testDbKind() !== 'postgres';

async function call(url: string, key: string | null, init: RequestInit = {}) {
  const res = await fetch(url, {
    ...init,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.headers ?? {}),
    },
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}

test('embedded: npm start creates the demo, the CLI is forwarded to the running server, a revoked key is refused at once, a second serve refuses', {
  skip: !embedded,
  timeout: 600_000,
}, async (t) => {
  const dataDir = tempDataDir(t);
  const env = baseEnv({ DATA_DIR: dataDir, PORT: '0' });
  const server = await startServer(t, env, ['npm', 'start', '--silent']);
  await server.waitFor(/Try:.*\n/);
  const out = server.output();
  const full = /full: (lk_full_\S+)/.exec(out)?.[1];
  const read = /read: (lk_read_\S+)/.exec(out)?.[1];
  const docs = /API docs: (http\S+\/docs)/.exec(out)?.[1];
  assert.ok(full && read && docs, `the newcomer gets two keys and the docs URL: ${out}`);

  assert.equal((await fetch(docs)).status, 200);
  assert.equal((await call(`${server.url}/healthz`, null)).status, 200);
  const clients = await call(`${server.url}/api/clients`, read);
  assert.equal(clients.status, 200);
  assert.ok(clients.body.total > 0, 'the demo has clients');
  assert.ok((await call(`${server.url}/api/credit-configs`, full)).body.length > 0, 'the demo has plans');
  assert.ok((await call(`${server.url}/api/branches`, read)).body.length > 0, 'the demo has branches');
  assert.equal((await call(`${server.url}/api/branches`, read, { method: 'POST', body: '{"name":"x"}' })).status, 403);
  assert.equal((await call(`${server.url}/api/clients`, null)).status, 401);

  // the command line while the server holds the data directory: forwarded, same answers
  const businesses = await runJson<{ id: string; name: string }[]>(['businesses', 'list'], env);
  assert.equal(businesses.length, 1);
  const biz = await runJson(['businesses', 'create', '--name', 'Beside the server'], env);
  const key = await runJson(['keys', 'create', '--business', biz.id, '--scope', 'full'], env);
  assert.match(key.key, /^lk_full_/);
  const created = await call(`${server.url}/api/branches`, key.key, { method: 'POST', body: '{"name":"Sucursal"}' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.business_id, biz.id);
  const listed = await runJson<{ id: string; last_used_at: string | null }[]>(
    ['keys', 'list', '--business', biz.id],
    env,
  );
  assert.ok(listed.find((k) => k.id === key.id)?.last_used_at, 'last_used_at is kept');
  const revoked = await runJson(['keys', 'revoke', key.id], env);
  assert.ok(revoked.revoked_at, 'revoked.revoked_at is set');
  const refused = await call(`${server.url}/api/branches`, key.key);
  assert.equal(refused.status, 401, 'a key revoked through the CLI is refused by the running server at once');
  assert.equal(refused.body.code, 'unauthorized');
  assert.deepEqual((await runJson(['migrate'], env)).applied, []);
  const usage = await run(['keys', 'revoke', randomUUID()], env);
  assert.notEqual(usage.code, 0, 'a forwarded command keeps its exit code');
  assert.match(usage.stderr, /no key/);
  const demo2 = await runJson(['demo'], env);
  assert.equal(
    (await call(`${server.url}/api/clients`, demo2.keys.read)).status,
    200,
    'a demo made through the server has working keys',
  );
  assert.equal((await runJson<unknown[]>(['businesses', 'list'], env)).length, 3);

  // one process per data directory: a second server says so in one line and exits
  const second = await run(['serve'], env);
  assert.notEqual(second.code, 0);
  assert.equal(second.stdout, '');
  assert.equal(second.stderr.trim().split('\n').length, 1, second.stderr);
  assert.match(second.stderr, /in use|already running/);
  assert.equal((await call(`${server.url}/healthz`, null)).status, 200, 'the first server is unharmed');

  await server.stop();
  // without the server, the same commands open the data directory themselves
  const after = await runJson<{ id: string }[]>(['businesses', 'list'], env);
  assert.deepEqual(
    after.map((b) => b.id).sort(),
    businesses
      .map((b) => b.id)
      .concat(biz.id, demo2.business.id)
      .sort(),
  );

  // a second start on the same data does not create another demo
  const again = await startServer(t, env);
  assert.ok(!/demo|lk_full_/i.test(again.output()), again.output());
  assert.equal((await call(`${again.url}/api/branches`, key.key)).status, 401, 'revocation survives a restart');
  assert.equal((await call(`${again.url}/api/clients`, read)).status, 200);
  await again.stop();
  assert.equal((await runJson<unknown[]>(['businesses', 'list'], env)).length, 3);
});

test('PostgreSQL: serve never creates data by itself; the CLI works beside it and a revoked key is refused at once', {
  skip: embedded,
  timeout: 600_000,
}, async (t) => {
  const env = baseEnv({ DATABASE_URL: await emptyPostgres(t), PORT: '0' });
  const server = await startServer(t, env);
  assert.ok(!/demo|lk_full_|lk_read_/i.test(server.output()), server.output());
  assert.match(server.output(), /PostgreSQL/);
  assert.equal((await call(`${server.url}/readyz`, null)).status, 200);
  assert.deepEqual(await runJson(['businesses', 'list'], env), [], 'no business was created');

  const biz = await runJson(['businesses', 'create', '--name', 'PG business'], env);
  const key = await runJson(['keys', 'create', '--business', biz.id, '--scope', 'read'], env);
  const ok = await call(`${server.url}/api/clients`, key.key);
  assert.equal(ok.status, 200);
  assert.equal(ok.body.total, 0);
  assert.equal((await call(`${server.url}/api/clients`, key.key, { method: 'POST', body: '{"dni":"1"}' })).status, 403);
  await runJson(['keys', 'revoke', key.id], env);
  assert.equal((await call(`${server.url}/api/clients`, key.key)).status, 401);

  await server.stop();
  // a restart still creates nothing
  const again = await startServer(t, env);
  assert.ok(!/demo|lk_full_/i.test(again.output()), 'holds: !/demo|lk_full_/i.test(again.output())');
  await again.stop();
  assert.equal((await runJson<unknown[]>(['businesses', 'list'], env)).length, 1);
});

test('serve refuses an unusable PORT, LOG_LEVEL, ACCRUAL_SCHEDULE or DATABASE_URL and a port in use, each in one line', {
  timeout: 300_000,
}, async (t) => {
  const dataDir = tempDataDir(t);
  const first = await startServer(t, baseEnv({ DATA_DIR: dataDir, PORT: '0' }));
  const port = new URL(first.url).port;
  // a port already taken (by the first server), with another data directory
  const otherDir = tempDataDir(t);
  const busy = await run(['serve'], baseEnv({ DATA_DIR: otherDir, PORT: port }));
  assert.notEqual(busy.code, 0);
  assert.equal(busy.stdout, '');
  assert.equal(busy.stderr.trim().split('\n').length, 1, busy.stderr);
  assert.match(busy.stderr, new RegExp(`${port}.*in use`, 'i'));
  // the failed start created no demo whose keys nobody saw, and released its data directory
  assert.deepEqual(await runJson(['businesses', 'list'], baseEnv({ DATA_DIR: otherDir })), []);
  await first.stop();
  for (const vars of [
    { PORT: 'abc' },
    { LOG_LEVEL: 'loud' },
    { ACCRUAL_SCHEDULE: 'nonsense' },
    { DATABASE_URL: 'mysql://x' },
  ]) {
    const r = await run(['serve'], baseEnv({ DATA_DIR: dataDir, ...vars }));
    assert.notEqual(r.code, 0, JSON.stringify(vars));
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(Object.keys(vars)[0]!));
  }
});
