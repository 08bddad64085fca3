// Slow clients hold nothing for long. Node enforces the request and headers timeouts (a 408 from
// clientErrorHandler) and closes a silent connection; a request whose body stalls for the
// connection timeout is answered 408 here, through the body's reader, so a half-sent upload is
// refused and removed like any other failed one.
import type { ServerOptions } from 'node:http';
import type { FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../domain/errors.ts';
import type { Config } from '../../config.ts';
import type { App } from '../types.ts';

/** How often Node checks the request and headers timeouts (its default, 30 s, would let a 3 s timeout run to 30). */
const CHECK_EVERY_MS = 1000;

/** Fastify's server options for the configured timeouts (seconds in the config, ms here). */
export function serverTimeouts(
  config: Config,
): Pick<FastifyServerOptions, 'connectionTimeout' | 'requestTimeout' | 'keepAliveTimeout'> & { http: ServerOptions } {
  return {
    connectionTimeout: config.connectionTimeout * 1000,
    requestTimeout: config.requestTimeout * 1000,
    keepAliveTimeout: config.keepAliveTimeout * 1000,
    http: { headersTimeout: config.headersTimeout * 1000, connectionsCheckingInterval: CHECK_EVERY_MS },
  };
}

export default fp(
  async (app: App) => {
    const seconds = app.config.connectionTimeout;
    app.addHook('onRequest', async (req, reply) => {
      const socket = req.raw.socket;
      // the connection was silent for the connection timeout while the body was still due
      req.raw.on('timeout', () => {
        // answered already (the rest of the body was being discarded): nothing left to say
        if (reply.sent) return socket.destroy();
        const err = new AppError(
          'request_timeout',
          `no byte of the request body came for ${seconds} s: the request is closed`,
        );
        reply.header('connection', 'close');
        // the body's reader (the JSON parser, the multipart stream) fails with it and the error
        // handler answers; nothing reads yet: answer now
        if (req.raw.listenerCount('error') > 0) req.raw.emit('error', err);
        else void reply.code(err.status).send(err);
      });
      // silent while the handler works is fine; a response the client does not read is not
      reply.raw.on('timeout', () => {
        if (socket.writableLength > 0) socket.destroy();
      });
    });
  },
  { name: 'timeouts' },
);
