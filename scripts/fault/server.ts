// The real service as people run it: `node bin/lending.js serve` as a child process on a fresh
// embedded data directory or a fresh PostgreSQL database, and the command line beside it (with the
// embedded database the command line is forwarded to the running server over its admin socket).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export type DbKind = 'embedded' | 'postgres';

/** The PostgreSQL server used when no URL is given: the one of the test suite, else a local one. */
export const defaultPostgresUrl = () => process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** Parses `--db embedded|postgres|both`. */
export function dbKinds(arg: string): DbKind[] {
  if (arg === 'both') return ['embedded', 'postgres'];
  if (arg === 'embedded' || arg === 'postgres') return [arg];
  throw new Error(`--db must be embedded, postgres or both (got ${arg})`);
}

/** Where one run keeps its data: the environment of the server and the CLI, and how to remove it. */
export interface Target {
  kind: DbKind;
  env: NodeJS.ProcessEnv;
  filesDir: string;
  dispose(): Promise<void>;
}

/** The environment of a command: nothing inherited that could point it at another database. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // the limits are tested on their own (test/http/rate-limit, test/http/public-rate-limit); here
  // they would only turn the fuzz's requests into 429s
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'warn',
    ACCRUAL_SCHEDULE: 'off',
    RATE_LIMIT: '0',
    PUBLIC_RATE_LIMIT: '0',
    METRICS_PORT: '0',
  };
  for (const k of [
    'DATABASE_URL',
    'DATA_DIR',
    'FILES_DIR',
    'PORT',
    'HOST',
    'PUBLIC_URL',
    'NODE_TEST_CONTEXT',
    'NODE_OPTIONS',
  ])
    delete env[k];
  return { ...env, ...extra };
}

/**
 * A fresh place for the data: an empty embedded data directory, or a PostgreSQL database created
 * next to the one of `postgresUrl` (dropped by dispose). Files go to their own directory either way.
 */
export async function createTarget(
  kind: DbKind,
  postgresUrl: string,
  extra: Record<string, string> = {},
): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), `lending-fault-${kind}-`));
  const filesDir = join(dir, 'files');
  mkdirSync(filesDir);
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (kind === 'embedded') {
    return {
      kind,
      filesDir,
      env: cleanEnv({ DATA_DIR: join(dir, 'data'), FILES_DIR: filesDir, ...extra }),
      dispose: async () => removeDir(),
    };
  }
  const name = `lending_fault_${randomBytes(5).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    kind,
    filesDir,
    env: cleanEnv({ DATABASE_URL: url.toString(), DATA_DIR: join(dir, 'data'), FILES_DIR: filesDir, ...extra }),
    dispose: async () => {
      // a server killed with -9 may leave its sessions for a moment
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      removeDir();
    },
  };
}

/** How many files are stored under a directory (the bytes of client files). */
export function countFiles(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const p = spawn(process.execPath, ['bin/lending.js', ...args], {
      cwd: ROOT,
      env: { ...env, LOG_LEVEL: 'silent' },
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

/** Runs a --json command and parses its stdout. */
export async function cliJson<T = any>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const r = await cli([...args, '--json'], env);
  if (r.code !== 0) throw new Error(`lending ${args.join(' ')} --json exited ${r.code}: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout) as T;
}

/** A business and its keys, made with the command line as an operator does. */
export interface Tenant {
  businessId: string;
  full: string;
  read: string;
}

export async function createTenant(env: NodeJS.ProcessEnv, name: string): Promise<Tenant> {
  const biz = await cliJson<{ id: string }>(['businesses', 'create', '--name', name], env);
  const [full, read] = await Promise.all(
    (['full', 'read'] as const).map((scope) =>
      cliJson<{ key: string }>(['keys', 'create', '--business', biz.id, '--scope', scope], env),
    ),
  );
  return { businessId: biz.id, full: full!.key, read: read!.key };
}

export interface StartFigures {
  /** from the start request to /readyz answering 200 */
  ms: number;
  /** starts that exited before listening (the embedded directory still locked by a dead holder) */
  failedAttempts: number;
  /** what the last of them said */
  failedWith: string | null;
}

const OUTPUT_KEPT = 64 * 1024;
const live = new Set<ChildProcess>();
// a run that is interrupted or fails leaves no server behind (they run in their own process group)
process.on('exit', () => {
  for (const p of live) {
    try {
      process.kill(-p.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One server, started, killed and started again on the same data and port. A start that exits
 * before listening (the data directory is still locked) is tried again until `startTimeoutMs`.
 */
export class ServerProcess {
  private proc: ChildProcess | null = null;
  private out = '';
  private port = 0;
  private readonly listeners: ((text: string) => void)[] = [];
  url = '';

  private readonly env: NodeJS.ProcessEnv;
  private readonly startTimeoutMs: number;

  constructor(env: NodeJS.ProcessEnv, startTimeoutMs = 180_000) {
    this.env = env;
    this.startTimeoutMs = startTimeoutMs;
  }

  /** the last lines the server printed (stdout and stderr), for failure reports */
  output(): string {
    return this.out;
  }

  /** calls `fn` with everything the server prints from now on, across restarts */
  onOutput(fn: (text: string) => void) {
    this.listeners.push(fn);
  }

  private keep(d: string) {
    this.out = (this.out + d).slice(-OUTPUT_KEPT);
    for (const fn of this.listeners) fn(d);
  }

  /** Starts the server and waits until /readyz answers 200. */
  async start(): Promise<StartFigures> {
    const t0 = performance.now();
    let failedAttempts = 0;
    let failedWith: string | null = null;
    for (;;) {
      const exit = await this.spawnOnce();
      if (exit === 'listening') break;
      failedAttempts++;
      failedWith = exit.trim().split('\n').at(-1) ?? '';
      if (performance.now() - t0 > this.startTimeoutMs)
        throw new Error(`the server did not start in ${this.startTimeoutMs} ms:\n${this.out.slice(-2000)}`);
      await sleep(250);
    }
    while (!(await this.ready())) {
      if (performance.now() - t0 > this.startTimeoutMs)
        throw new Error(`/readyz did not answer 200 in ${this.startTimeoutMs} ms`);
      await sleep(50);
    }
    return { ms: Math.round(performance.now() - t0), failedAttempts, failedWith };
  }

  /** resolves 'listening' once the server printed its URL, or with what it printed on stderr if it exited first */
  private spawnOnce(): Promise<string> {
    const proc = spawn(process.execPath, ['bin/lending.js', 'serve'], {
      cwd: ROOT,
      env: { ...this.env, PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.proc = proc;
    live.add(proc);
    proc.on('exit', () => live.delete(proc));
    let head: string | null = ''; // output until the URL line (the banner is on stderr)
    let errors = '';
    return new Promise((res) => {
      const scan = (d: string) => {
        if (head === null) return;
        head += d;
        const m = /listening on (http:\/\/\S+)/.exec(head);
        if (!m) return;
        head = null;
        this.url = m[1]!;
        this.port = Number(new URL(this.url).port);
        res('listening');
      };
      proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
        this.keep(d);
        scan(d);
      });
      proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
        this.keep(d);
        // the banner is not an error
        if (!/listening on|API docs|Database:|Metrics:/.test(d)) errors += d;
        scan(d);
      });
      proc.on('close', (code) => res(errors || `exited with ${code}`));
    });
  }

  private async ready(): Promise<boolean> {
    try {
      return (await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2000) })).status === 200;
    } catch {
      return false;
    }
  }

  /** kill -9 (the whole process group) and wait until it is gone */
  async kill9(): Promise<void> {
    await this.signal('SIGKILL');
  }

  /** a clean stop (SIGTERM), or kill -9 if it has not ended in 15 s */
  async stop(): Promise<void> {
    const timer = setTimeout(() => void this.signal('SIGKILL'), 15_000);
    await this.signal('SIGTERM');
    clearTimeout(timer);
  }

  private async signal(sig: NodeJS.Signals) {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    try {
      process.kill(-proc.pid!, sig);
    } catch {
      /* already gone */
    }
    await exited;
  }
}
