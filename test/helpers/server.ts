// Shared steps of the hardening tests: the whole app on a loopback port (configured by
// environment, as in production) and raw sockets that behave as slow or broken clients do.
import type { TestContext } from 'node:test';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/http/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { DirectoryStorage } from '../../src/storage/directory.ts';
import type { App } from '../../src/http/types.ts';
import { sharedTestDb } from './db.ts';
import { createTenant, type Tenant } from './app.ts';

export interface Served {
  app: App;
  config: Config;
  port: number;
  tenant: Tenant;
  url: (path: string) => string;
  /** fetch with the tenant's full key; a JSON body is sent as JSON */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

export async function serve(
  t: TestContext,
  env: Record<string, string> = {},
  logger?: Parameters<typeof buildApp>[0]['logger'],
): Promise<Served> {
  const db = await sharedTestDb();
  const dataDir = mkdtempSync(join(tmpdir(), 'lending-hardening-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ACCRUAL_SCHEDULE: 'off', ...env });
  const app = await buildApp({
    db,
    config,
    storage: new DirectoryStorage(config.filesDir),
    ...(logger ? { logger } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const port = (app.server.address() as { port: number }).port;
  const tenant = await createTenant(db);
  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url(path), {
      method,
      headers: {
        authorization: `Bearer ${tenant.fullKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return { app, config, port, tenant, url, call };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** ms from the first byte sent to the connection's end */
  ms: number;
}

/** What came back on a raw connection, once the server closed it (or `wait` ms passed: status 0). */
export function responseOf(socket: Socket, wait = 30_000): Promise<RawResponse> {
  const start = Date.now();
  return new Promise((resolve) => {
    let data = '';
    const done = () => {
      clearTimeout(timer);
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const lines = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      const headers = Object.fromEntries(
        lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status, headers, body: rest.join('\r\n\r\n'), ms: Date.now() - start });
    };
    const timer = setTimeout(() => {
      socket.destroy();
    }, wait);
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', done);
  });
}

/** A raw connection to the server (from `localAddress` when given: any 127.x.y.z on Linux). */
export function open(port: number, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) }, () => resolve(s));
    s.once('error', reject);
  });
}

/** A request head with these headers (Host added). */
export const head = (method: string, path: string, headers: Record<string, string | number>) =>
  [
    `${method} ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A logger at `level` whose lines (parsed) the test can read. */
export function capturedLogger(level = 'debug') {
  const lines: Record<string, unknown>[] = [];
  /** each line as written (JSON.parse would hide a key written twice) */
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of chunk.toString().split('\n'))
        if (l.trim()) {
          raw.push(l);
          lines.push(JSON.parse(l));
        }
      cb();
    },
  });
  return { logger: { level, stream }, lines, raw };
}
