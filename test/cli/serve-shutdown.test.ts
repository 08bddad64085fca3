// The real server process on SIGTERM. A request in flight (its body still
// arriving) finishes; meanwhile /readyz answers 503 on a new connection (the listener stays open
// while requests are in flight); then the process exits 0, well within SHUTDOWN_TIMEOUT_MS. And
// a request that never finishes does not hold the process much past the deadline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseEnv, modeEnv, runJson, startServer } from '../helpers/cli-process.ts';
import { open, responseOf, sleep } from '../helpers/server.ts';

async function serverWithKey(t: Parameters<typeof modeEnv>[0], extra: Record<string, string>) {
  const env = baseEnv({ ...modeEnv(t), LOG_LEVEL: 'info', ...extra });
  // a business made before the server starts: no demo to create, a key of our own
  const biz = await runJson(['businesses', 'create', '--name', `Shutdown ${Date.now()}`], env);
  const { key } = await runJson<{ key: string }>(['keys', 'create', '--business', biz.id, '--scope', 'full'], env);
  const server = await startServer(t, env);
  await server.waitFor(/Server listening/);
  return { server, key, port: Number(new URL(server.url).port) };
}

function slowPost(port: number, key: string, body: string) {
  return open(port).then((socket) => {
    socket.write(
      `POST /api/clients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    socket.write(body.slice(0, 5));
    return socket;
  });
}

test('SIGTERM: /readyz 503 while the request in flight finishes, then exit 0', { timeout: 300_000 }, async (t) => {
  const { server, key, port } = await serverWithKey(t, { SHUTDOWN_TIMEOUT_MS: '20000' });
  assert.equal((await fetch(`${server.url}/readyz`)).status, 200);

  const body = JSON.stringify({ dni: `sd-${Date.now()}`, first_name: 'Ana' });
  const socket = await slowPost(port, key, body);
  const answer = responseOf(socket, 60_000);
  await sleep(300);
  process.kill(server.proc.pid!, 'SIGTERM');
  await server.waitFor(/"msg":"shutting down"/);

  // a new connection: the listener is still open while a request is in flight
  const ready = await fetch(`${server.url}/readyz`);
  assert.equal(ready.status, 503);
  const readyBody = (await ready.json()) as { code: string; request_id: string };
  assert.equal(readyBody.code, 'unavailable');
  assert.equal(readyBody.request_id, ready.headers.get('x-request-id'));
  assert.equal(ready.headers.get('connection'), 'close');

  // the request in flight completes
  socket.write(body.slice(5));
  const res = await answer;
  assert.equal(res.status, 201, res.body);
  assert.match(res.body, /"first_name":"Ana"/);

  const code = await server.exited;
  // exit 0 is the proof it finished before SHUTDOWN_TIMEOUT_MS (past it, the process exits 1)
  assert.equal(code, 0, server.output());
  assert.match(server.output(), /"msg":"shut down"/);
});

test('SIGTERM: a request that never finishes does not keep the process past SHUTDOWN_TIMEOUT_MS', {
  timeout: 300_000,
}, async (t) => {
  const { server, key, port } = await serverWithKey(t, { SHUTDOWN_TIMEOUT_MS: '2000' });
  const socket = await slowPost(port, key, JSON.stringify({ dni: 'never-finished' }));
  t.after(() => socket.destroy());
  await sleep(300);
  const t0 = Date.now();
  process.kill(server.proc.pid!, 'SIGTERM');
  const code = await server.exited;
  const ms = Date.now() - t0;
  // Fastify may end the unfinished request itself when it closes (exit 0), or the deadline ends
  // the process (exit 1, "shutdown deadline passed"): either way, not later than the deadline
  assert.ok(code === 0 || code === 1, `exit code ${code}`);
  // a process kept alive by the request would run into the test's timeout; the bound catches a
  // deadline not applied (it would wait for the socket's own timeouts) with room for a loaded machine
  assert.ok(ms < 2000 + 15_000, `exited after ${ms} ms`);
});
