// Request ids and the access line. Every response carries X-Request-Id: the caller's own when it
// is a plain token (a proxy or client that already named the request), otherwise a new uuid. The
// same id is the `request_id` of every log line Fastify writes for the request and of an Error
// body, so a failure reported by a client is found in the logs by that one value.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import type { App } from '../types.ts';

/** What an incoming X-Request-Id may be to be kept: anything else (a log injection, a huge header) is replaced. */
export const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Fastify's genReqId: the request's own id when it is acceptable, else a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
}

export default fp(
  async (app: App) => {
    // onRequest runs for every request that reaches routing, 404s and refused requests included
    // (the router's own errors set it in frameworkErrors)
    app.addHook('onRequest', async (req, reply) => {
      reply.header('x-request-id', req.id);
    });
    // one line a request, once it is answered (Fastify's own two lines are off): who asked, for
    // which business, by which route, and how it went
    app.addHook('onResponse', async (req, reply) => {
      const auth = req.auth as (typeof req)['auth'] | null | undefined;
      req.log.info(
        {
          req,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
          ...(auth
            ? {
                business_id: auth.businessId,
                ...(auth.keyId ? { key_id: auth.keyId } : {}),
                ...(auth.userId ? { user_id: auth.userId } : {}),
                // the operator acting as the user, by id (an email is personal data)
                ...(req.session?.operator && auth.userId ? { operator_id: req.session.operator.id } : {}),
              }
            : {}),
        },
        'request completed',
      );
    });
  },
  { name: 'request-id' },
);
