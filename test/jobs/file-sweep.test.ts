// What a crash can leave in FILES_DIR, and the sweep that removes it: bytes written but never
// given a row (crash before the insert committed), bytes whose row was deleted (crash before the
// bytes were removed), temporary files of a write cut short. Young files are left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { build, json } from '../helpers/app.ts';
import { sweepOrphanFiles } from '../../src/services/files.ts';
import { startFileSweep } from '../../src/jobs/fileSweep.ts';
import { pdf, png } from '../helpers/file-fixtures.ts';
import { newClient, storedFiles, upload } from '../helpers/files.ts';
import { cli } from '../helpers/cli.ts';

const silent = { warn() {}, error() {} };
const TWO_HOURS_AGO = new Date(Date.now() - 2 * 3600_000);

test('the sweep removes old orphan bytes and interrupted writes, and nothing a row points at', async (t) => {
  const h = await build(t);
  const dir = h.config.filesDir;
  const c = await newClient(h);
  const live = json(await upload(h, c.id, 'live.pdf', pdf()));
  const gone = json(await upload(h, c.id, 'gone.png', png()));
  const bid = h.tenant.businessId;
  const age = (key: string) => utimesSync(join(dir, key), TWO_HOURS_AGO, TWO_HOURS_AGO);

  // crash after the row's deletion committed, before the bytes went
  await sql`delete from client_files where business_id = ${bid} and id = ${gone.id}`.execute(h.db.kysely);
  // crash after the bytes were written, before the row committed: an old one and a young one
  const oldOrphan = `${bid}/${c.id}/${randomUUID()}`;
  const youngOrphan = `${bid}/${c.id}/${randomUUID()}`;
  await h.app.storage.put(oldOrphan, Readable.from([pdf()]));
  await h.app.storage.put(youngOrphan, Readable.from([pdf()]));
  // crash in the middle of a write: temporary files
  const oldPartial = `${bid}/${c.id}/${randomUUID()}.${randomUUID()}.partial`;
  const youngPartial = `${bid}/${c.id}/${randomUUID()}.${randomUUID()}.partial`;
  for (const p of [oldPartial, youngPartial]) writeFileSync(join(dir, p), 'half');
  // something the service never writes
  const foreign = 'notes/readme.txt';
  mkdirSync(dirname(join(dir, foreign)), { recursive: true });
  writeFileSync(join(dir, foreign), 'mine');

  const liveKey = `${bid}/${c.id}/${live.id}`;
  for (const k of [liveKey, `${bid}/${c.id}/${gone.id}`, oldOrphan, oldPartial, foreign]) age(k);

  const r = await sweepOrphanFiles({ db: h.db.kysely, storage: h.app.storage, log: silent });
  assert.deepEqual(r, { checked: 3, removed: 2, incomplete: 1 });
  assert.deepEqual(storedFiles(dir), [liveKey, youngOrphan, youngPartial, foreign].sort());
  assert.equal((await h.get(live.file_url)).statusCode, 200);

  // once they are old enough, the young ones go too (a grace of 0 here)
  const r2 = await sweepOrphanFiles(
    { db: h.db.kysely, storage: h.app.storage, log: silent },
    { graceMs: 0, now: new Date(Date.now() + 1000) },
  );
  assert.deepEqual(r2, { checked: 2, removed: 1, incomplete: 1 });
  assert.deepEqual(storedFiles(dir), [liveKey, foreign].sort());
});

test('`lending files sweep` runs the same sweep', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const orphan = `${h.tenant.businessId}/${c.id}/${randomUUID()}`;
  await h.app.storage.put(orphan, Readable.from([pdf()]));
  const r = await cli(h, 'files', 'sweep', '--grace-minutes', '0', '--json');
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), { checked: 1, removed: 1, incomplete: 0 });
  assert.deepEqual(storedFiles(h.config.filesDir), []);
});

test('the server sweeps when it starts', async (t) => {
  const h = await build(t);
  const c = await newClient(h);
  const live = json(await upload(h, c.id, 'live.pdf', pdf()));
  const liveKey = `${h.tenant.businessId}/${c.id}/${live.id}`;
  const orphan = `${h.tenant.businessId}/${c.id}/${randomUUID()}`;
  await h.app.storage.put(orphan, Readable.from([pdf()]));
  for (const k of [liveKey, orphan]) utimesSync(join(h.config.filesDir, k), TWO_HOURS_AGO, TWO_HOURS_AGO);
  const logged: object[] = [];
  const sweep = startFileSweep(h.db, h.app.storage, {
    info: (o: object) => logged.push(o),
    warn() {},
    error: (o: object) => logged.push(o),
  } as never);
  t.after(() => sweep.stop());
  await sweep.firstRun;
  assert.deepEqual(storedFiles(h.config.filesDir), [liveKey]);
  assert.deepEqual(logged, [{ checked: 2, removed: 1, incomplete: 0 }]);
});
