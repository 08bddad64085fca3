// The data directory lock: one process at a time, and a dead holder's lock is free at once
// (a restart after kill -9 does not wait for anything to go stale).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirBusyError, lockDataDir } from '../../src/db/lock.ts';

const LOCK = new URL('../../src/db/lock.ts', import.meta.url).href;

/** A child process that takes the lock, says "locked" and then waits to be killed. */
function holder(dir: string) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { lockDataDir } = await import(${JSON.stringify(LOCK)}); await lockDataDir(${JSON.stringify(dir)}); console.log('locked'); setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
  return { child, ready };
}

function tempDir(t: { after: (fn: () => void) => void }) {
  const dir = mkdtempSync(join(tmpdir(), 'lending-lock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a second holder is refused while the first lives; released, the directory is free again', async (t) => {
  const dir = tempDir(t);
  const h = holder(dir);
  await h.ready;
  await assert.rejects(lockDataDir(dir), DataDirBusyError);
  h.child.kill('SIGTERM');
  await new Promise((r) => h.child.once('exit', r));
  const release = await lockDataDir(dir);
  await assert.rejects(lockDataDir(dir), DataDirBusyError, 'the same process cannot take it twice either');
  await release();
  await (await lockDataDir(dir))();
});

test('after kill -9 of the holder the lock is taken at once', async (t) => {
  const dir = tempDir(t);
  const h = holder(dir);
  await h.ready;
  h.child.kill('SIGKILL');
  await new Promise((r) => h.child.once('exit', r));
  const started = performance.now();
  const release = await lockDataDir(dir);
  // a wait for staleness would be 15 s (STALE_MS); the bound leaves room for a loaded machine
  const took = performance.now() - started;
  assert.ok(took < 7500, `no wait for staleness: took ${took} ms`);
  await release();
});

test("another host's lock file counts until it goes stale", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, '.lock');
  writeFileSync(file, JSON.stringify({ host: 'another-host.example', pid: 1 }));
  await assert.rejects(lockDataDir(dir), DataDirBusyError, 'fresh: busy');
  const old = new Date(Date.now() - 60_000);
  utimesSync(file, old, old);
  await (await lockDataDir(dir))();
});

test('a lock file cut short by a crash, or naming a dead process of this host, holds nothing', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, '.lock'), '{"host":');
  await (await lockDataDir(dir))();
  const h = holder(dir);
  await h.ready;
  h.child.kill('SIGKILL');
  await new Promise((r) => h.child.once('exit', r));
  await (await lockDataDir(dir))();
});
