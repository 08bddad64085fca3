// An unknown method and path is 404 with the Error body whatever the request carries: a JSON body
// is not "this endpoint takes no body" (400), since there is no endpoint to take or refuse it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../helpers/app.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const PATHS = ['/api/no-such-thing', '/api/clients/x/y/z', '/no-such-page', '/public/nope/nothing'];

test('an unknown route is 404 with the Error body, with or without a body (malformed JSON, any type), under /api and elsewhere', async (t) => {
  const h = await build(t);
  for (const url of PATHS)
    for (const method of METHODS)
      for (const [payload, type] of [
        [undefined, undefined],
        [{ amount: 1 }, 'application/json'],
        ['{"x":[1,2]}', 'application/json'],
        ['', 'application/json'],
        ['{not json', 'application/json'],
        ['plain words', 'text/plain'],
        ['<a/>', 'application/xml'],
      ] as const) {
        const res = await h.req({
          method,
          url,
          ...(payload === undefined ? {} : { payload, headers: { 'content-type': type! } }),
        });
        const what = `${method} ${url} ${payload === undefined ? 'no body' : `${type} ${JSON.stringify(payload)}`}`;
        assert.equal(res.statusCode, 404, `${what}: ${res.body}`);
        const body = json(res);
        assert.equal(body.code, 'not_found', what);
        assert.equal(typeof body.error, 'string', what);
        assert.equal(typeof body.request_id, 'string', what);
      }
});

test('an unknown method on a known path is 404 too, with a body', async (t) => {
  const h = await build(t);
  for (const method of ['PATCH', 'PUT', 'DELETE'] as const) {
    for (const payload of [{ first_name: 'Ana' }, '{not json']) {
      const res = await h.req({
        method,
        url: '/api/clients',
        payload,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 404, `${method} /api/clients ${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(json(res).code, 'not_found');
    }
  }
});
