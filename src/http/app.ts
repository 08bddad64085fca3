// Builds the whole HTTP application; tests boot exactly this and inject requests into it. Each
// concern is a named plugin (plugins/); this file says what is registered and in which order: a
// hook or parser applies to the routes registered after it, in its scope.
import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { isConsistencyToken, noteWrite, type Clock, type Database } from '../services/context.ts';
import { invalid, systemClock } from '../domain/index.ts';
import type { Config } from '../config.ts';
import type { FileStorage } from '../storage/storage.ts';
import { smtpMailer, type Mailer } from '../mail/transport.ts';
import type { KeyCache } from '../services/apiKeys.ts';
import type { Metrics } from '../metrics.ts';
import errors, { clientErrorHandler, frameworkErrors, notFoundHandler } from './plugins/errors.ts';
import { installValidation } from './plugins/validation.ts';
import { installSerialization } from './plugins/serialization.ts';
import jsonBody from './plugins/jsonBody.ts';
import securityHeaders from './plugins/securityHeaders.ts';
import openapi from './plugins/openapi.ts';
import declaredErrors from './plugins/declaredErrors.ts';
import trailingSlash from './plugins/trailingSlash.ts';
import { decorateSession, requireAuth } from './plugins/auth.ts';
import { install as idempotencyKeys } from './idempotency.ts';
import rateLimit from './plugins/rateLimit.ts';
import optionsMethod from './plugins/optionsMethod.ts';
import timeouts, { serverTimeouts } from './plugins/timeouts.ts';
import connectionLimit from './plugins/connectionLimit.ts';
import bodyDrain from './plugins/bodyDrain.ts';
import { safeLogger } from './plugins/logging.ts';
import requestId, { requestIdOf } from './plugins/requestId.ts';
import { proxyTrust } from './origin.ts';
import { SHARED_SCHEMAS } from './schemas.ts';
import { apiRoutes, publicRoutes } from './routes/index.ts';
import type { App } from './types.ts';

export interface BuildOptions {
  db: Database;
  config: Config;
  storage: FileStorage;
  logger?: FastifyServerOptions['logger'];
  /** where a request's now and today come from (default: the real time; tests set their own) */
  clock?: Clock;
  /** the keys already checked (KeyCache.start; the caller closes it): without it, a query per request */
  keyCache?: KeyCache | null;
  /** where e-mail goes: default, the SMTP server of SMTP_URL (none without it); closed with the app */
  mailer?: Mailer | null;
  /** where request durations are counted (the server's registry, served on METRICS_PORT) */
  metrics?: Metrics | null;
}

export const JSON_BODY_LIMIT = 1024 * 1024;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** the request header of read-your-writes across processes (docs/deployment.md#read-replicas) */
const CONSISTENCY_TOKEN = 'consistency-token';

export async function buildApp(opts: BuildOptions): Promise<App> {
  const app = Fastify({
    logger: safeLogger(opts.logger),
    bodyLimit: JSON_BODY_LIMIT,
    // path params are checked by their schemas; a malformed uuid answers 404
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // X-Request-Id (plugins/requestId.ts): kept when acceptable, and the key of every request's log lines
    genReqId: requestIdOf,
    requestIdHeader: false,
    // request_id on each request's lines; one access line a request, with the business and key
    // (plugins/requestId.ts), instead of Fastify's two
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    trustProxy: proxyTrust(opts.config.trustProxy),
    ...serverTimeouts(opts.config),
    clientErrorHandler,
    frameworkErrors,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  app.decorate('db', opts.db);
  app.decorate('config', opts.config);
  app.decorate('storage', opts.storage);
  app.decorate('clock', opts.clock ?? systemClock);
  app.decorate('keyCache', opts.keyCache ?? null);
  const mailer = opts.mailer !== undefined ? opts.mailer : opts.config.mail ? smtpMailer(opts.config.mail) : null;
  app.decorate('mailer', mailer);
  if (mailer && opts.mailer === undefined) app.addHook('onClose', async () => mailer.close());
  // set by the server on SIGTERM: /readyz answers 503 while in-flight requests finish, and every
  // answer asks its client to take the next request elsewhere
  app.decorate('draining', false);
  app.addHook('onRequest', async (_req, reply) => {
    if (app.draining) reply.header('connection', 'close');
  });

  await app.register(errors);
  await app.register(requestId);
  const metrics = opts.metrics;
  if (metrics) {
    app.addHook('onResponse', async (req, reply) =>
      metrics.request(req.routeOptions.url, req.method, reply.statusCode, reply.elapsedTime),
    );
  }
  await app.register(connectionLimit);
  await app.register(timeouts);
  await app.register(bodyDrain);
  installValidation(app);
  installSerialization(app);
  for (const s of SHARED_SCHEMAS) app.addSchema(s);
  await app.register(jsonBody);
  await app.register(securityHeaders);
  await app.register(openapi);
  await app.register(declaredErrors);
  await app.register(trailingSlash);
  decorateSession(app);

  await app.register(publicRoutes);
  await app.register(
    async (api) => {
      requireAuth(api as App);
      // read-your-writes on a replica: the caller's write is remembered before its answer leaves,
      // so its next list or report reads what it wrote, and the answer carries its consistency
      // token for reads the caller sends to other processes (docs/deployment.md#read-replicas)
      api.addHook('onRequest', async (req) => {
        const token = req.headers[CONSISTENCY_TOKEN];
        if (token === undefined || !req.auth) return;
        if (typeof token !== 'string' || !isConsistencyToken(token))
          throw invalid(
            '/headers/consistency-token',
            "must be the Consistency-Token of a write's answer, e.g. 16/B374D848",
          );
        req.auth.readAfter = token;
      });
      api.addHook('onSend', async (req, reply, payload) => {
        if (req.auth && !SAFE_METHODS.has(req.method) && reply.statusCode < 400) {
          const token = await noteWrite(app.db, req.auth);
          if (token !== null) reply.header('Consistency-Token', token);
        }
        return payload;
      });
      // every POST registered from here on takes an Idempotency-Key (idempotency.ts)
      idempotencyKeys(api as App);
      await api.register(rateLimit);
      await api.register(optionsMethod);
      await api.register(apiRoutes);
      // under /api even a path or method that matches no route asks for the key or session first
      // (401; a read key or a viewer on a write method is 403), so nothing about the API shows
      // without one
      api.setNotFoundHandler(notFoundHandler);
    },
    { prefix: '/api' },
  );
  return app;
}
