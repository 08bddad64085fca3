// Secrets never reach a log: with the logger at trace, a key sent in the query
// string, an upload link's token and a dni searched for or refused as a duplicate appear in no
// line. The lines still say what happened: the method, the route and the path with the token masked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileForm, pdf } from '../helpers/file-fixtures.ts';
import { capturedLogger, serve } from '../helpers/server.ts';

test('no key, token or dni in any log line; the path is logged with the token masked and no query values', {
  timeout: 60_000,
}, async (t) => {
  const log = capturedLogger('trace');
  const s = await serve(t, {}, log.logger);
  const dni = '27345678';
  const client = (await s.call('POST', '/api/clients', { dni, first_name: 'Ana' })).body;
  const link = (await s.call('POST', `/api/clients/${client.id}/upload-sessions`, {})).body;
  const token: string = link.token;

  // a key in the query string (refused: keys go in headers)
  assert.equal((await fetch(s.url(`/api/clients?api_key=${s.tenant.fullKey}`))).status, 401);
  assert.equal(
    (
      await fetch(s.url(`/api/clients?key=${s.tenant.readKey}&token=${token}`), {
        headers: { authorization: `Bearer ${s.tenant.readKey}` },
      })
    ).status,
    400,
  );
  // a client search by dni, and the dni refused as a duplicate
  assert.equal((await s.call('GET', `/api/clients?q=${dni}`)).status, 200);
  assert.equal((await s.call('POST', '/api/clients', { dni })).status, 409);
  // a public upload through the link, and a path under it that no route serves
  const form = fileForm('dni.pdf', pdf());
  const up = await fetch(s.url(`/upload/${token}`), {
    method: 'POST',
    headers: { 'content-type': form.contentType },
    body: form.payload,
  });
  assert.equal(up.status, 201);
  assert.equal((await fetch(s.url(`/upload/${token}/more`), { method: 'POST' })).status, 404);
  // an upload with the key in a header (multipart logs the request headers at trace level)
  const byKey = await fetch(s.url(`/api/clients/${client.id}/files`), {
    method: 'POST',
    headers: { authorization: `Bearer ${s.tenant.fullKey}`, 'content-type': form.contentType },
    body: form.payload,
  });
  assert.equal(byKey.status, 201);
  assert.equal((await fetch(s.url(`/upload/${token}`), { method: 'GET' })).status, 404);

  await new Promise((r) => setTimeout(r, 100));
  const text = log.lines.map((l) => JSON.stringify(l));
  assert.ok(text.length > 10, 'the requests were logged');
  for (const [what, secret] of [
    ['full key', s.tenant.fullKey],
    ['read key', s.tenant.readKey],
    ['upload token', token],
    ['token without its prefix', token.slice(3)],
    ['dni', dni],
  ] as const) {
    const leaks = text.filter((l) => l.includes(secret));
    assert.deepEqual(leaks, [], `the ${what} is in ${leaks.length} log lines`);
  }
  // what the lines do say
  const urls = log.lines.map((l) => (l.req as { url?: string } | undefined)?.url).filter(Boolean);
  assert.ok(urls.includes('/upload/[token]'), `upload logged with the token masked: ${urls.join(' ')}`);
  assert.ok(
    urls.some((u) => /^\/api\/clients\?q=\[redacted\]$/.test(u!)),
    `query values redacted, keys kept: ${urls.join(' ')}`,
  );
  const routes = log.lines.map((l) => (l.req as { route?: string } | undefined)?.route).filter(Boolean);
  assert.ok(routes.includes('/upload/:token'), 'the route pattern is logged');
});
