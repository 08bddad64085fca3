// The real server under test: `node bin/lending.js serve` as a child process on a free port, no
// scheduler, no rate limit, warnings only; ready once /readyz answers. Its RSS is sampled while it runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Server {
  baseUrl: string;
  /** what it printed so far */
  output(): string;
  pid: number;
  /** highest RSS seen (MiB) since start or the last resetPeak() */
  peakRssMiB(): number;
  resetPeak(): void;
  /** CPU time (user + system) the server process has used so far, in seconds (/proc: 10 ms ticks) */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

function rssMiB(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0; // gone
  }
}

/** The process's user + system CPU time in seconds (fields 14 and 15 of /proc/PID/stat, in clock ticks of 10 ms). */
function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the command name, which is in parentheses and may hold spaces
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN; // gone
  }
}

/** databaseUrl null: the embedded database (give DATA_DIR in extraEnv). */
export async function startServer(databaseUrl: string | null, extraEnv: Record<string, string> = {}): Promise<Server> {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  // BENCH_SERVER_NODE_ARGS: node options for the server alone (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`,
  // which NODE_OPTIONS does not take)
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, 'bin/lending.js', 'serve'], {
    cwd: root,
    env: {
      ...inherited,
      ...(databaseUrl === null ? {} : { DATABASE_URL: databaseUrl }),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ACCRUAL_SCHEDULE: 'off',
      RATE_LIMIT: '0',
      METRICS_PORT: '0',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let out = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    // stays attached: keeps draining (and recording) what it prints; the banner (URL, demo keys)
    // is on stderr, copied through to ours
    const scan = (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', scan);
    child.stderr!.on('data', (b: Buffer) => {
      process.stderr.write(b);
      scan(b);
    });
    void exited.then((code) => reject(new Error(`lending serve exited (${code}) before listening:\n${out}`)));
  });
  for (let i = 0; ; i++) {
    const ok = await fetch(`${baseUrl}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    if (i > 100) throw new Error(`${baseUrl}/readyz never answered 200`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const pid = child.pid!;
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 200);
  timer.unref();
  return {
    baseUrl,
    output: () => out,
    pid,
    peakRssMiB: () => Math.max(peak, rssMiB(pid)),
    resetPeak: () => (peak = rssMiB(pid)),
    cpuSeconds: () => cpuSecondsOf(pid),
    async stop() {
      clearInterval(timer);
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** A bare route of bench/lib (barePostgres.ts, bareEmbedded.ts) as a child process: `args` after `node --import tsx`. */
export async function startBare(args: string[]): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`${args[0]} exited (${code}) before listening: ${out}`)));
  });
  return {
    baseUrl,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
