// JSON bodies: an empty body is "no body" (POST /cancel with a JSON content type), anything else
// must parse, and text/plain is no way to send one (415, not a string that fails validation).
// A route that expects a body reads a missing one as {}; a route that takes none refuses one.
import fp from 'fastify-plugin';
import { AppError } from '../../domain/errors.ts';
import type { App } from '../types.ts';

export default fp(
  async (app: App) => {
    app.removeContentTypeParser(['application/json', 'text/plain']);
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
      // a request that matches no route is 404 whatever it carries, malformed JSON included
      if (req.is404) return done(null, undefined);
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(text));
      } catch {
        const err = Object.assign(new Error('the body is not valid JSON'), {
          code: 'FST_ERR_CTP_INVALID_JSON_BODY',
          statusCode: 400,
        });
        done(err, undefined);
      }
    });

    // No body where a JSON body is expected reads as {}: an empty PUT is the no-op docs/api.md
    // promises, and a POST without one is told which fields it lacks, not "must be object".
    app.addHook('preValidation', async (req) => {
      const ct = req.headers['content-type'];
      if (req.body === undefined && req.routeOptions.schema?.body && (!ct || /^application\/json\b/i.test(ct)))
        req.body = {};
    });

    // A route that takes no body refuses one rather than ignoring it (POST /cancel {"x": 1} is a
    // 400, not a cancel). An empty object or null is no body. A request that matches no route is
    // left to the not-found handler: 404 whatever it carries.
    app.addHook('preValidation', async (req) => {
      if (
        req.is404 ||
        req.routeOptions.schema?.body ||
        req.body === undefined ||
        req.body === null ||
        req.isMultipart?.()
      )
        return;
      const b = req.body;
      if (typeof b === 'object' && !Array.isArray(b) && Object.keys(b).length === 0) return;
      throw new AppError('validation_failed', 'this endpoint takes no body', [{ path: '/', message: 'must be empty' }]);
    });
  },
  { name: 'json-body' },
);
