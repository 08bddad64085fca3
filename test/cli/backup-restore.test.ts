// `lending backup` of the embedded database and the files directory while it is
// in use (the command as a running server runs it: on its database, through the operator's lane),
// `lending restore` into an empty DATA_DIR as a person runs it, and every table's rows and every
// file's bytes compared after the round trip. The refusals: a directory that is not empty, a
// file that is no backup, and PostgreSQL (which pg_dump backs up).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbedded, type Database } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { loadConfig } from '../../src/config.ts';
import { DirectoryStorage } from '../../src/storage/directory.ts';
import { buildApp } from '../../src/http/app.ts';
import { createDemo } from '../../src/services/demo.ts';
import { createTenant } from '../helpers/app.ts';
import { fileForm, pdf, png } from '../helpers/file-fixtures.ts';
import { baseEnv, run } from '../helpers/cli-process.ts';
import { capturedIo, runCli } from '../helpers/cli.ts';

/** Every row of every table, as sorted JSON text per table. */
async function tables(db: Database): Promise<Record<string, string[]>> {
  return db.session(async (s) => {
    const names = await s.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    );
    const out: Record<string, string[]> = {};
    for (const { table_name } of names) {
      // api_keys.last_used_at is a usage stamp written after a request's answer, at most once a
      // minute a key: the reads served during the backup may stamp it after the snapshot
      const rows = await s.query<{ r: string }>(
        `SELECT (to_jsonb(t) - 'last_used_at')::text AS r FROM "${table_name}" t`,
      );
      out[table_name] = rows.map((x) => x.r).sort();
    }
    return out;
  });
}

/** Every file under dir (relative path → sha256). */
function files(dir: string, base = dir, out: Record<string, string> = {}): Record<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files(p, base, out);
    else out[p.slice(base.length + 1)] = createHash('sha256').update(readFileSync(p)).digest('hex');
  }
  return out;
}

test('backup while in use, restore into an empty DATA_DIR: every table and every file the same', {
  timeout: 600_000,
}, async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'lending-backup-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const source = join(root, 'source');
  // no per-key limit: the reads below go on for as long as the backup takes
  const config = loadConfig({ DATA_DIR: source, LOG_LEVEL: 'silent', ACCRUAL_SCHEDULE: 'off', RATE_LIMIT: '0' });
  const db = await openEmbedded(source);
  let closed = false;
  t.after(async () => {
    if (!closed) await db.close();
  });
  await migrate(db);
  const storage = new DirectoryStorage(config.filesDir);
  // a book: the demo (plans, branches, clients, credits, payments, audit) and uploaded files
  await createDemo(db);
  const tenant = await createTenant(db);
  const app = await buildApp({ db, config, storage });
  t.after(() => app.close());
  const auth = { authorization: `Bearer ${tenant.fullKey}` };
  const client = JSON.parse(
    (await app.inject({ method: 'POST', url: '/api/clients', headers: auth, payload: { dni: '20333444' } })).body,
  );
  for (const [name, data] of [
    ['dni.pdf', pdf()],
    ['photo.png', png()],
  ] as const) {
    const f = fileForm(name, data);
    const res = await app.inject({
      method: 'POST',
      url: `/api/clients/${client.id}/files`,
      headers: { ...auth, 'content-type': f.contentType },
      payload: f.payload,
    });
    assert.equal(res.statusCode, 201, res.body);
  }

  // the backup as the server runs it for `lending backup`, with reads going on meanwhile
  const archive = join(root, 'book.tar.gz');
  const cli = capturedIo();
  let reading = true;
  const reads = (async () => {
    let n = 0;
    while (reading) {
      const res = await app.inject({ method: 'GET', url: '/api/clients', headers: auth });
      assert.equal(res.statusCode, 200);
      n++;
      // a steady stream of reads, not a loop that keeps the process from doing the backup
      await new Promise((r) => setTimeout(r, 10));
    }
    return n;
  })();
  const code = await runCli(['backup', '--to', archive, '--json'], cli.io, {
    db: db.forOperator(),
    storage,
    config,
  });
  reading = false;
  assert.ok((await reads) > 0, 'requests were served during the backup');
  assert.equal(code, 0, cli.err());
  const manifest = JSON.parse(cli.out());
  assert.equal(manifest.format, 'lending-backup');
  assert.equal(manifest.files, 2);
  assert.equal(statSync(archive).mode & 0o777, 0o600, 'the archive is the owner’s only');

  const before = await tables(db);
  const beforeFiles = files(config.filesDir);
  assert.equal(Object.keys(beforeFiles).length, 2);
  assert.ok(
    before.ledger!.length > 0 && before.audit_log!.length > 0 && before.client_files!.length === 2,
    'the book has ledger entries, audit entries and two files before the backup',
  );
  await app.close();
  await db.close();
  closed = true;

  // restored by the command line, as a person runs it
  const target = join(root, 'restored');
  const restored = await run(['restore', '--from', archive], baseEnv({ DATA_DIR: target }));
  assert.equal(restored.code, 0, restored.stderr);
  assert.match(restored.stdout, /restored/);
  const copy = await openEmbedded(target);
  try {
    assert.deepEqual(await tables(copy), before);
  } finally {
    await copy.close();
  }
  assert.deepEqual(files(join(target, 'files')), beforeFiles);

  // refused: a directory that is not empty, something that is no backup
  const again = await run(['restore', '--from', archive], baseEnv({ DATA_DIR: target }));
  assert.equal(again.code, 2);
  assert.match(again.stderr, /not empty/);
  const junk = join(root, 'junk.tar.gz');
  writeFileSync(junk, 'not an archive');
  const empty = join(root, 'empty');
  const bad = await run(['restore', '--from', junk], baseEnv({ DATA_DIR: empty }));
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /not a lending backup/);
  assert.deepEqual(readdirSync(empty), [], 'a failed restore leaves the directory empty');
});

test('with DATABASE_URL, backup explains pg_dump and the files directory, and exits non-zero', async () => {
  const env = baseEnv({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
  const r = await run(['backup', '--to', 'x.tar.gz'], env);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /pg_dump/);
  assert.match(r.stderr, /FILES_DIR/);
  assert.equal(r.stdout, '');
  const restore = await run(['restore', '--from', 'x.tar.gz'], env);
  assert.equal(restore.code, 2);
  assert.match(restore.stderr, /pg_restore/);
});
