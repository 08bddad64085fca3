// The command line run in-process (runCli of src/cli/main.ts) on a test's database, file storage,
// configuration and clock, with what it prints collected: the commands exactly as `lending …`
// runs them, without a process of its own. test/helpers/cli-process.ts spawns the real one.
import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/main.ts';
import type { Harness } from './app.ts';

export { runCli };

/** What a command printed, and its exit code. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** An io for runCli whose stdout and stderr are collected (stderr a terminal when told). */
export function capturedIo(stderrIsTTY = false) {
  let out = '';
  let err = '';
  const io = {
    stdout: new Writable({ write: (c, _e, cb) => ((out += c.toString()), cb()) }),
    stderr: new Writable({ write: (c, _e, cb) => ((err += c.toString()), cb()) }),
    stderrIsTTY,
  };
  return { io, out: () => out, err: () => err };
}

/** `lending …` in-process on the harness's database, storage, configuration and clock. */
export async function cli(h: Harness, ...argv: string[]): Promise<CliRun> {
  const c = capturedIo();
  const code = await runCli(argv, c.io, { db: h.db, storage: h.app.storage, config: h.config, clock: h.clock });
  return { code, out: c.out(), err: c.err() };
}

/** `lending … --json`: stdout parsed as the one JSON document it must be (null when it printed nothing). */
export async function cliJson(h: Harness, ...argv: string[]): Promise<{ code: number; out: any; err: string }> {
  const r = await cli(h, ...argv, '--json');
  let out: any = null;
  if (r.out.trim()) {
    try {
      out = JSON.parse(r.out);
    } catch {
      throw new Error(`lending ${argv.join(' ')} --json did not print one JSON document: ${r.out.slice(0, 500)}`);
    }
  }
  return { code: r.code, out, err: r.err };
}

/** `lending accrue --json …` (the daily run) as of the harness's clock. */
export function accrue(h: Harness, ...args: string[]): Promise<{ code: number; out: any; err: string }> {
  return cliJson(h, 'accrue', ...args);
}
