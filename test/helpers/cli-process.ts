// Spawns the real command line (`node bin/lending.js …`) the way a person runs it, against a fresh
// embedded data directory or the PostgreSQL test database (TEST_DB=postgres).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { testDatabaseUrl, testDbKind } from './db.ts';

export const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a command: nothing inherited that could point it at another database. */
export function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // no metrics listener unless a test asks for one: servers run side by side; no webhook deliveries
  // (servers on the shared PostgreSQL test database would send other tests' deliveries); no jobs at
  // all: on the real clock they would sweep the sessions and sign-in counters of tests whose clock
  // is in the past, and pay their imports
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'silent',
    ACCRUAL_SCHEDULE: 'off',
    METRICS_PORT: '0',
    WEBHOOKS: 'off',
    JOBS: 'off',
  };
  for (const k of ['DATABASE_URL', 'DATA_DIR', 'FILES_DIR', 'PORT', 'HOST', 'PUBLIC_URL', 'NODE_TEST_CONTEXT'])
    delete env[k];
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** A fresh data directory, removed after the test. */
export function tempDataDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'lending-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The environment of the mode under test: an empty embedded data directory, or DATABASE_URL. */
export function modeEnv(t: TestContext): Record<string, string> {
  return testDbKind() === 'postgres' ? { DATABASE_URL: testDatabaseUrl() } : { DATA_DIR: tempDataDir(t) };
}

export function run(args: string[], env: NodeJS.ProcessEnv): Promise<Result> {
  return new Promise((resolveRun, reject) => {
    const p = spawn(process.execPath, ['bin/lending.js', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

/** Runs a --json command and parses its whole stdout as exactly one JSON document. */
export async function runJson<T = any>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const r = await run([...args, '--json'], env);
  if (r.code !== 0) throw new Error(`lending ${args.join(' ')} --json exited ${r.code}: ${r.stderr}${r.stdout}`);
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`lending ${args.join(' ')} --json did not print one JSON document: ${r.stdout}`);
  }
}

export interface Server {
  proc: ChildProcess;
  url: string;
  output: () => string;
  /** resolves when the accumulated output matches (stdout: the JSON logs; stderr: the banner) */
  waitFor(re: RegExp): Promise<RegExpMatchArray>;
  stop(): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * Starts a server (own process group, so npm and its child stop together) and waits for the line
 * that gives its URL. Stopped after the test whatever happens.
 */
export async function startServer(
  t: TestContext,
  env: NodeJS.ProcessEnv,
  command: string[] = [process.execPath, 'bin/lending.js', 'serve'],
): Promise<Server> {
  const proc = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void; reject: (e: Error) => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      const m = (out + err).match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    check();
  });
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    check();
  });
  const exited = new Promise<number | null>((res) => proc.on('exit', (code) => res(code)));
  void exited.then((code) => {
    for (const w of waiters.splice(0))
      w.reject(new Error(`the server exited (${code}) before printing ${w.re}: ${out}\n${err}`));
  });
  let stopped = false;
  const stop = async () => {
    if (!stopped && proc.exitCode === null && proc.signalCode === null) {
      stopped = true;
      try {
        process.kill(-proc.pid!, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    return exited;
  };
  t.after(stop);
  const waitFor = (re: RegExp) =>
    new Promise<RegExpMatchArray>((res, rej) => {
      const m = (out + err).match(re);
      if (m) return res(m);
      if (proc.exitCode !== null) return rej(new Error(`the server has exited: ${out}\n${err}`));
      waiters.push({ re, resolve: res, reject: rej });
    });
  const m = await waitFor(/listening on (http:\/\/\S+)/);
  return { proc, url: m[1]!, output: () => out + err, waitFor, stop, exited };
}

/** A DATABASE_URL for a fresh, empty schema of the test database, dropped after the test. */
export async function emptyPostgres(t: TestContext): Promise<string> {
  const schema = `cli_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  t.after(async () => {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });
  const url = new URL(testDatabaseUrl());
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}
