// A request node's HTTP parser refuses (headers over the limit) is answered 431 with the Error
// body, and the client still sending the rest of it reads that answer: the connection is not
// reset under it (src/http/plugins/errors.ts clientErrorHandler). The fuzzer's 100 KB query
// strings met such resets when the rest of the request arrived in more than one piece.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from '../helpers/app.ts';

/**
 * Sends the whole request in pieces, a pause between them, whatever comes back meanwhile (as an
 * HTTP client writing its request does), and reads the answer.
 */
function sendInPieces(
  port: number,
  pieces: string[],
  pauseMs: number,
): Promise<{ text: string; error: string | null }> {
  return new Promise((resolve) => {
    let text = '';
    let error: string | null = null;
    const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, async () => {
      for (const p of pieces) {
        if (s.destroyed) break;
        s.write(p);
        await sleep(pauseMs);
      }
      if (!s.destroyed) s.end();
    });
    s.setEncoding('utf8').on('data', (d: string) => (text += d));
    s.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    s.on('close', () => resolve({ text, error }));
  });
}

test('a request line over the limit, still arriving in pieces after the refusal, gets its 431 without a reset', async (t) => {
  const h = await build(t);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;
  const query = 'x'.repeat(120_000);
  const request = `GET /api/events?types=${query} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.tenant.readKey}\r\n\r\n`;
  const pieces: string[] = [];
  for (let i = 0; i < request.length; i += 20_000) pieces.push(request.slice(i, i + 20_000));
  for (let round = 0; round < 3; round++) {
    const { text, error } = await sendInPieces(port, pieces, 30);
    assert.equal(error, null, `the connection was reset: ${error}`);
    assert.match(text, /^HTTP\/1.1 431 /, text.slice(0, 200));
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    assert.equal(body.code, 'headers_too_large');
  }
  // the server goes on answering
  const ok = await h.get('/api/events');
  assert.equal(ok.statusCode, 200);
});

test('a request over the header limit that follows, on the same connection, a body refused early (413) gets its own 431', async (t) => {
  // The fuzzer's reset: the 413's body was still being discarded when the next request's head
  // overflowed in the same read, and the connection was taken for the refused one and cut.
  const h = await build(t);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;
  const body = JSON.stringify({ zz: 'x'.repeat(1_200_000) });
  const first =
    `POST /api/clients HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.tenant.fullKey}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const second = `GET /api/events?types=${'x'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`;
  for (let round = 0; round < 3; round++) {
    const { text, error } = await sendInPieces(port, [first + second], 0);
    assert.equal(error, null, `the connection was reset: ${error}`);
    assert.deepEqual(
      [...text.matchAll(/HTTP\/1\.1 (\d+) /g)].map((m) => m[1]),
      ['413', '431'],
      text.slice(0, 300),
    );
  }
  const clients = await h.get('/api/clients');
  assert.equal(clients.json().total, 0, 'the refused body created nothing');
});
