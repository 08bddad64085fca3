// The embedded database belongs to one process. While the server holds it, the command line
// asks the server to run the command instead, over a Unix socket in the data directory that only
// this user can open. Frames are JSON lines: {"o": text} stdout, {"e": text} stderr, {"exit": n}.
// Both ends live here, below the command line (src/cli forwards) and the server (src/server.ts
// listens): it knows neither, only node's http and a function that runs a command line.
import { createServer, request, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';

export function adminSocketPath(dataDir: string): string {
  const p = join(dataDir, 'admin.sock');
  // Unix socket paths are limited to ~107 bytes
  if (Buffer.byteLength(p) < 100) return p;
  return join(tmpdir(), `lending-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.sock`);
}

export interface CliIO {
  stdout: Writable;
  stderr: Writable;
  /** whether stderr is an interactive terminal (progress bars) */
  stderrIsTTY: boolean;
}

export type CommandRunner = (argv: string[], io: CliIO) => Promise<number>;

function frameWriter(res: NodeJS.WritableStream, key: 'o' | 'e') {
  return new Writable({
    write(chunk, _enc, cb) {
      const ok = res.write(JSON.stringify({ [key]: chunk.toString('utf8') }) + '\n');
      if (ok) cb();
      else res.once('drain', () => cb());
    },
  });
}

export function startAdminSocket(path: string, run: CommandRunner): Promise<Server> {
  rmSync(path, { force: true }); // a socket left by a process that died
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    let code = 1;
    try {
      const { argv } = JSON.parse(body) as { argv: string[] };
      code = await run(argv, { stdout: frameWriter(res, 'o'), stderr: frameWriter(res, 'e'), stderrIsTTY: false });
    } catch (err) {
      res.write(JSON.stringify({ e: `error: ${(err as Error).message}\n` }) + '\n');
    }
    res.end(JSON.stringify({ exit: code }) + '\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      chmodSync(path, 0o600);
      resolve(server);
    });
  });
}

/** The server could not be reached: nothing was run, so the caller may try again. */
export class ServerUnreachable extends Error {}

/**
 * Runs argv in the server that holds the data directory; resolves with its exit code. Rejects
 * with ServerUnreachable only when nothing reached the server; a failure after that resolves
 * with 1 (the command may have run: it must not be run again).
 */
export function forwardToServer(path: string, argv: string[], io: CliIO): Promise<number> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (code: number) => {
      if (settled) return;
      settled = true;
      io.stdout.off('error', onStdoutError);
      resolve(code);
    };
    // the reader went away (`| head -1`): stop the command in the server, end quietly
    const onStdoutError = (err: NodeJS.ErrnoException) => {
      req.destroy();
      done(err.code === 'EPIPE' ? 0 : 1);
    };
    io.stdout.on('error', onStdoutError);
    const req = request(
      { socketPath: path, method: 'POST', path: '/', headers: { 'content-type': 'application/json' } },
      (res) => {
        let buf = '';
        let exit = 1;
        let waiting = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
            const frame = JSON.parse(buf.slice(0, nl)) as { o?: string; e?: string; exit?: number };
            buf = buf.slice(nl + 1);
            // a slow stdout pauses the socket, and so the command in the server (a large export)
            if (frame.o !== undefined && !io.stdout.write(frame.o) && !waiting) {
              waiting = true;
              res.pause();
              io.stdout.once('drain', () => {
                waiting = false;
                res.resume();
              });
            }
            if (frame.e !== undefined) io.stderr.write(frame.e);
            if (frame.exit !== undefined) exit = frame.exit;
          }
        });
        res.on('end', () => done(exit));
        res.on('error', () => {
          if (!settled) io.stderr.write('error: the server stopped answering while running the command\n');
          done(1);
        });
      },
    );
    req.on('error', (err) => {
      if (settled) return;
      if (req.reusedSocket || (err as NodeJS.ErrnoException).code === 'ECONNRESET') {
        io.stderr.write('error: the server stopped answering while running the command\n');
        done(1);
      } else {
        settled = true;
        io.stdout.off('error', onStdoutError);
        reject(new ServerUnreachable(err.message));
      }
    });
    req.end(JSON.stringify({ argv }));
  });
}
