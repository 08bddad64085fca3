// Reads off a streaming replica (DATABASE_READ_URL, docs/deployment.md#read-replicas) against a
// real primary and a real hot standby this test starts on the machine (initdb, pg_basebackup -R):
// the lists read the standby, a caller reads its own writes at once, a standby paused beyond
// READ_MAX_LAG_MS sends the reads to the primary and the metric counts them, and the feed's read
// follows its own (writing) sequencer pass; a write's Consistency-Token carries read-your-writes to
// another process. PostgreSQL half of the suite only, like
// test/services/events-parallel-writers.test.ts; skipped when the PostgreSQL 15 server binaries are missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomInt } from 'node:crypto';
import pg from 'pg';
import { openPostgres, type Database } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { buildApp } from '../../src/http/app.ts';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { DirectoryStorage } from '../../src/storage/directory.ts';
import { Metrics } from '../../src/metrics.ts';
import { build, createTenant, json, type Tenant } from '../helpers/app.ts';
import { testDbKind } from '../helpers/db.ts';
import type { App } from '../../src/http/types.ts';

const BIN = '/usr/lib/postgresql/15/bin';
const MAX_LAG_MS = 1_000;

test('DATABASE_READ_URL needs DATABASE_URL: the embedded database has no replica', () => {
  assert.throws(
    () => loadConfig({ DATA_DIR: tmpdir(), DATABASE_READ_URL: 'postgres://127.0.0.1:5433/x' }),
    (e: unknown) => e instanceof ConfigError && /embedded database has no replica/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/x', DATABASE_READ_URL: 'mysql://x', DATA_DIR: tmpdir() }),
    /DATABASE_READ_URL must be a postgres/,
  );
  const c = loadConfig({
    DATABASE_URL: 'postgres://127.0.0.1/x',
    DATABASE_READ_URL: 'postgres://r/x',
    DATA_DIR: tmpdir(),
  });
  assert.equal(c.databaseReadUrl, 'postgres://r/x');
  assert.equal(c.readMaxLagMs, 1000);
});

const missing = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'].filter((b) => !existsSync(join(BIN, b)));
const skip =
  testDbKind() !== 'postgres'
    ? 'PostgreSQL half of the suite only: the embedded database has no replica'
    : missing.length > 0
      ? `the PostgreSQL 15 server binaries are missing (${missing.join(', ')} not in ${BIN}): install postgresql-15 to run this test`
      : false;

/** Runs a server binary, as the postgres OS user when we are root (initdb and postgres refuse root). */
function run(bin: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const r = asRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', join(BIN, bin), ...args], { encoding: 'utf8' })
    : spawnSync(join(BIN, bin), args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Cluster {
  primaryUrl: string;
  standbyUrl: string;
  stop(): void;
}

/** A primary and a hot standby streaming from it, in a temporary folder; stop() stops and removes them. */
async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'lending-replica-'));
  if (process.getuid?.() === 0) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim();
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  const primary = join(dir, 'primary');
  const standby = join(dir, 'standby');
  const [p1, p2] = [await freePort(), await freePort()];
  const started: string[] = [];
  const stop = () => {
    for (const d of started.reverse()) {
      try {
        run('pg_ctl', ['-D', d, '-m', 'immediate', '-w', 'stop']);
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run('initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '-N', '-E', 'UTF8', '--locale=C']);
    appendFileSync(
      join(primary, 'postgresql.conf'),
      `\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nfsync = off\nfull_page_writes = off\n` +
        `shared_buffers = 16MB\nwal_level = replica\nmax_wal_senders = 4\n`,
    );
    run('pg_ctl', ['-D', primary, '-o', `-p ${p1}`, '-l', join(dir, 'primary.log'), '-w', 'start']);
    started.push(primary);
    run('pg_basebackup', [
      '-D',
      standby,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '-h',
      '127.0.0.1',
      '-p',
      String(p1),
      '-U',
      'postgres',
    ]);
    run('pg_ctl', ['-D', standby, '-o', `-p ${p2}`, '-l', join(dir, 'standby.log'), '-w', 'start']);
    started.push(standby);
  } catch (err) {
    stop();
    throw err;
  }
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${p1}/postgres`,
    standbyUrl: `postgres://postgres@127.0.0.1:${p2}/postgres`,
    stop,
  };
}

async function one<T>(c: pg.Client, text: string): Promise<T> {
  return (await c.query(text)).rows[0] as T;
}

/** Waits until the standby has replayed everything the primary had written when called (5 s at most). */
async function replayed(primary: pg.Client, standby: pg.Client): Promise<void> {
  // flushed, not inserted: the insert position can point past a page header that replay only
  // passes with the next record (src/db/replica.ts primaryPosition)
  const { lsn } = await one<{ lsn: string }>(primary, 'SELECT pg_current_wal_flush_lsn()::text AS lsn');
  for (let i = 0; i < 500; i++) {
    const { ok } = await one<{ ok: boolean }>(standby, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS ok`);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the standby did not catch up in 5 s');
}

test('reads go to the standby within the lag bound, a caller reads its own writes, a standby behind the bound sends reads to the primary', {
  skip,
  timeout: 60_000,
}, async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  const primary = new pg.Client({ connectionString: cluster.primaryUrl });
  const standby = new pg.Client({ connectionString: cluster.standbyUrl });
  await primary.connect();
  await standby.connect();
  t.after(() => Promise.all([primary.end(), standby.end()]));

  const db: Database = await openPostgres(cluster.primaryUrl, 4, { readUrl: cluster.standbyUrl, maxLagMs: MAX_LAG_MS });
  t.after(() => db.close());
  await migrate(db);
  const dataDir = mkdtempSync(join(tmpdir(), 'lending-test-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ACCRUAL_SCHEDULE: 'off', WEBHOOKS: 'off' });
  const app: App = await buildApp({ db, config, storage: new DirectoryStorage(config.filesDir) });
  t.after(() => app.close());
  const tenant: Tenant = await createTenant(db);
  const metrics = new Metrics({ reads: () => db.readStats() });

  const get = async (url: string, key: string) => {
    const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.statusCode, 200, res.body);
    return json(res);
  };
  const newClient = async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/clients',
      headers: { authorization: `Bearer ${tenant.fullKey}` },
      payload: { dni: String(randomInt(10_000_000, 99_999_999)), first_name: 'Replica' },
    });
    assert.equal(res.statusCode, 201, res.body);
    return json(res) as { id: string };
  };
  const ids = async (key: string) =>
    ((await get('/api/clients?limit=100', key)).items as { id: string }[]).map((c) => c.id);
  const reads = () => db.readStats()!.reads;
  const caughtUp = () => replayed(primary, standby);
  const pause = async () => {
    await standby.query('SELECT pg_wal_replay_pause()');
    for (let i = 0; i < 500; i++) {
      if ((await one<{ s: string }>(standby, 'SELECT pg_get_wal_replay_pause_state() AS s')).s === 'paused') return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the standby did not pause');
  };
  const metric = async (reason: string) => {
    const text = await metrics.registry.getSingleMetricAsString('lending_db_reads_total');
    const line = text.split('\n').find((l) => l.includes(`reason="${reason}"`));
    return Number(line?.split(' ').pop() ?? 'NaN');
  };

  assert.equal((await one<{ r: boolean }>(standby, 'SELECT pg_is_in_recovery() AS r')).r, true, 'a hot standby');

  // 1. caught up: the lists read the standby (its pg_stat_activity shows the service's read connections)
  const first = await newClient();
  await get('/api/events', tenant.fullKey); // numbers its event (a write) before the reads below
  await caughtUp();
  const before = reads();
  assert.deepEqual(await ids(tenant.readKey), [first.id]);
  for (const url of ['/api/credits', '/api/installments', '/api/logs', '/api/reports/summary', '/api/events'])
    await get(url, tenant.readKey);
  assert.equal(
    reads().replica - before.replica,
    6,
    'the clients, credits, worklist, audit, summary and feed reads went to the standby',
  );
  const onStandby = await one<{ n: string }>(
    standby,
    "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'lending reads'",
  );
  assert.ok(Number(onStandby.n) >= 1, 'the service holds read connections on the standby');
  const csv = await app.inject({
    method: 'GET',
    url: '/api/reports/exports/clients.csv',
    headers: { authorization: `Bearer ${tenant.readKey}` },
  });
  assert.equal(csv.statusCode, 200);
  assert.ok(csv.body.includes(first.id), 'csv.body includes first.id');
  assert.equal(reads().replica - before.replica, 7, 'the export too');

  // 2. replay paused right after a replayed transaction: the standby is a moment behind, within the bound
  await primary.query('SELECT txid_current()');
  await caughtUp();
  await pause();
  const paused = Date.now();
  const second = await newClient(); // the full key writes: committed on the primary, not replayed
  // read-your-writes: the writer's own list comes from the primary and has it at once
  const own = reads().own_write;
  assert.deepEqual((await ids(tenant.fullKey)).sort(), [first.id, second.id].sort());
  assert.equal(
    reads().own_write,
    own + 1,
    "the writer's read went to the primary: the standby had not replayed its write",
  );
  // another caller, within the bound, reads the standby: it does not have the write yet (the marker
  // that this read was the standby's)
  if (Date.now() - paused < MAX_LAG_MS / 2) {
    const r0 = reads().replica;
    assert.deepEqual(await ids(tenant.readKey), [first.id], "the other caller's read came from the standby");
    assert.equal(reads().replica, r0 + 1);
  }

  // 3. beyond the bound: the reads go to the primary, and the metric says so
  await new Promise((r) => setTimeout(r, MAX_LAG_MS + 200));
  const lagBefore = await metric('lag');
  assert.deepEqual((await ids(tenant.readKey)).sort(), [first.id, second.id].sort(), 'read on the primary');
  assert.equal(await metric('lag'), lagBefore + 1, 'lending_db_reads_total{to="primary",reason="lag"}');
  assert.ok(
    Number(
      (await metrics.registry.getSingleMetricAsString('lending_db_replica_lag_seconds'))
        .split('\n')
        .pop()!
        .split(' ')
        .pop(),
    ) >
      MAX_LAG_MS / 1000,
    'the replica lag metric reads above the limit',
  );

  // 4. the feed's GET numbers events (a write, on the primary) and reads only what the standby has
  // replayed past that pass: the new client's event, numbered now, is in the page at once
  const feed = await get('/api/events?after=1', tenant.readKey);
  assert.deepEqual(
    feed.items.map((e: { sequence: number; type: string; data: { object: { id: string } } }) => [
      e.sequence,
      e.type,
      e.data.object.id,
    ]),
    [[2, 'client.created', second.id]],
  );

  // 5. replay resumed and caught up: the standby again, with everything; the feed from it shows
  // each event once (nothing after the cursor, nothing again before it)
  await standby.query('SELECT pg_wal_replay_resume()');
  await caughtUp();
  await new Promise((r) => setTimeout(r, 150)); // past the last check's validity
  const r1 = reads().replica;
  assert.deepEqual((await ids(tenant.readKey)).sort(), [first.id, second.id].sort());
  assert.deepEqual((await get('/api/events?after=2', tenant.readKey)).items, []);
  assert.deepEqual(
    (await get('/api/events?after=0', tenant.readKey)).items.map((e: { sequence: number }) => e.sequence),
    [1, 2],
  );
  assert.equal(reads().replica, r1 + 3);
  assert.equal(await metric('ok'), reads().replica);
});

test('without a replica a write answers no Consistency-Token, and a read takes a well-formed one and refuses another', async (t) => {
  const h = await build(t);
  const created = await h.post('/api/clients', { dni: String(randomInt(10_000_000, 99_999_999)), first_name: 'Token' });
  assert.equal(created.statusCode, 201);
  assert.equal(created.headers['consistency-token'], undefined, 'one database: nothing to wait for');
  const ok = await h.req({ method: 'GET', url: '/api/clients', headers: { 'consistency-token': '16/B374D848' } });
  assert.equal(ok.statusCode, 200, ok.body);
  for (const bad of ['yesterday', '16-B374D848', '123456789/0', '']) {
    const res = await h.req({ method: 'GET', url: '/api/clients', headers: { 'consistency-token': bad } });
    assert.equal(res.statusCode, 400, `${JSON.stringify(bad)}: ${res.body}`);
    assert.equal(json(res).code, 'validation_failed');
    assert.match(json(res).error, /consistency-token/i);
  }
});

test("a write's Consistency-Token makes another process's read wait for it on the standby, or read the primary", {
  skip,
  timeout: 60_000,
}, async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  const primary = new pg.Client({ connectionString: cluster.primaryUrl });
  const standby = new pg.Client({ connectionString: cluster.standbyUrl });
  await primary.connect();
  await standby.connect();
  t.after(() => Promise.all([primary.end(), standby.end()]));

  // two API processes behind a load balancer: each its own pools and its own memory of writes; a
  // generous lag bound, so only the token decides where a read goes
  const opened: Database[] = [];
  const open = async () => {
    const db = await openPostgres(cluster.primaryUrl, 4, { readUrl: cluster.standbyUrl, maxLagMs: 60_000 });
    opened.push(db);
    return db;
  };
  t.after(() => Promise.all(opened.map((d) => d.close())));
  const dbA = await open();
  await migrate(dbA);
  const dbB = await open();
  const dataDir = mkdtempSync(join(tmpdir(), 'lending-test-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ACCRUAL_SCHEDULE: 'off', WEBHOOKS: 'off' });
  const appA: App = await buildApp({ db: dbA, config, storage: new DirectoryStorage(config.filesDir) });
  const appB: App = await buildApp({ db: dbB, config, storage: new DirectoryStorage(config.filesDir) });
  t.after(() => Promise.all([appA.close(), appB.close()]));
  const tenant: Tenant = await createTenant(dbA);
  const auth = { authorization: `Bearer ${tenant.fullKey}` };

  const caughtUp = () => replayed(primary, standby);
  const ids = async (app: App, token?: string) => {
    const res = await app.inject({
      method: 'GET',
      url: '/api/clients?limit=100',
      headers: token ? { ...auth, 'consistency-token': token } : auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    return (json(res).items as { id: string }[]).map((c) => c.id).sort();
  };
  const readsB = () => dbB.readStats()!.reads;

  await caughtUp();
  await standby.query('SELECT pg_wal_replay_pause()');
  for (let i = 0; i < 500; i++) {
    if ((await one<{ s: string }>(standby, 'SELECT pg_get_wal_replay_pause_state() AS s')).s === 'paused') break;
    await new Promise((r) => setTimeout(r, 10));
  }

  // process A takes the write: committed on the primary, not replayed on the paused standby
  const created = await appA.inject({
    method: 'POST',
    url: '/api/clients',
    headers: auth,
    payload: { dni: String(randomInt(10_000_000, 99_999_999)), first_name: 'Elsewhere' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const token = created.headers['consistency-token'];
  assert.equal(typeof token, 'string');
  assert.match(token as string, /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/);
  const id = json(created).id as string;

  // process B has no memory of it: without the token its read comes from the standby, without the write
  const r0 = readsB();
  assert.deepEqual(await ids(appB), []);
  assert.equal(readsB().replica, r0.replica + 1, 'from the standby');
  // with the token the standby is behind it: the read goes to the primary and shows the write
  assert.deepEqual(await ids(appB, token as string), [id]);
  assert.equal(readsB().own_write, r0.own_write + 1, 'to the primary: the standby had not replayed the write');
  // so does a CSV export that brings the token
  const csv = async (token?: string) => {
    const res = await appB.inject({
      method: 'GET',
      url: '/api/reports/exports/clients.csv',
      headers: token ? { ...auth, 'consistency-token': token } : auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.body;
  };
  assert.ok(!(await csv()).includes(id), 'without the token the export reads the paused standby');
  assert.ok((await csv(token as string)).includes(id), 'with the token the export shows the write');
  assert.equal(readsB().own_write, r0.own_write + 2, 'the export went to the primary for the write');
  // a made-up token far beyond anything the primary wrote waits for what the primary has, no
  // more: the answer is right (the standby is paused, so it comes from the primary)
  assert.deepEqual(await ids(appB, 'FFFFFFFF/FFFFFFFF'), [id]);

  // replayed: the same token now reads the standby, which has the write
  await standby.query('SELECT pg_wal_replay_resume()');
  await caughtUp();
  await new Promise((r) => setTimeout(r, 150)); // past the last check's validity
  const r1 = readsB();
  assert.deepEqual(await ids(appB, token as string), [id]);
  assert.equal(readsB().replica, r1.replica + 1, 'from the standby, now that it has the write');
});
