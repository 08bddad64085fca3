// Builds the whole HTTP application: plugins, the error handler, the OpenAPI document and every
// route. Tests boot exactly this and inject requests into it.
import Fastify, { type FastifyReply, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import rateLimit from '@fastify/rate-limit';
import type { Database } from '../db/connection.ts';
import type { Config } from '../config.ts';
import type { FileStorage } from '../storage/storage.ts';
import { DirectoryStorage } from '../storage/directory.ts';
import { AppError } from '../domain/errors.ts';
import { errorBody, installErrorHandler, toAppError } from './errors.ts';
import { installValidation } from './plugins/validation.ts';
import { requireApiKey } from './plugins/auth.ts';
import { MONEY_FORMAT, RATE_FORMAT, SHARED_SCHEMAS } from './schemas.ts';
import { apiRoutes, publicRoutes } from './routes/index.ts';
import type { App } from './types.ts';

export interface BuildOptions {
  db: Database;
  config: Config;
  storage?: FileStorage;
  logger?: FastifyServerOptions['logger'];
}

export const JSON_BODY_LIMIT = 1024 * 1024;

export async function buildApp(opts: BuildOptions): Promise<App> {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: JSON_BODY_LIMIT,
    // path params are checked by their schemas; a malformed uuid answers 404
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
    // the records carry the input formats (their limits are the bodies'); the serializer only needs to know their names
    serializerOpts: { ajv: { formats: { [MONEY_FORMAT]: true, [RATE_FORMAT]: true } } },
    genReqId: () => crypto.randomUUID(),
    // a request node's HTTP parser refuses (headers too large, unknown method): our Error body too
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return;
      const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
      const body = JSON.stringify(
        tooLarge
          ? { error: 'the request headers are too large', code: 'headers_too_large' }
          : { error: 'the request is not valid HTTP', code: 'validation_failed' },
      );
      socket.end(
        `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
    // errors the router raises before any route or error handler runs: our Error body too
    frameworkErrors: (err, _req, reply: FastifyReply) => {
      const appErr = toAppError(err);
      void reply.status(appErr.status).type('application/json; charset=utf-8').send(errorBody(appErr));
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  app.decorate('db', opts.db);
  app.decorate('config', opts.config);
  app.decorate('storage', opts.storage ?? new DirectoryStorage(opts.config.filesDir));

  installErrorHandler(app);
  installValidation(app, SHARED_SCHEMAS);
  for (const s of SHARED_SCHEMAS) app.addSchema(s);

  // JSON bodies: an empty body is "no body" (POST /cancel with a JSON content type), anything
  // else must parse. Every error is our Error body.
  // text/plain is no way to send a JSON body: 415, not a string that fails validation
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      const err = Object.assign(new Error('the body is not valid JSON'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 });
      done(err, undefined);
    }
  });

  // No body where a JSON body is expected reads as {}: an empty PUT is the no-op API.md
  // promises, and a POST without one is told which fields it lacks, not "must be object".
  app.addHook('preValidation', async (req) => {
    const ct = req.headers['content-type'];
    if (req.body === undefined && req.routeOptions.schema?.body && (!ct || /^application\/json\b/i.test(ct))) req.body = {};
  });

  // A route that takes no body refuses one rather than ignoring it (POST /cancel {"x": 1} is a
  // 400, not a cancel). An empty object or null is no body.
  app.addHook('preValidation', async (req) => {
    if (req.routeOptions.schema?.body || req.body === undefined || req.body === null || req.isMultipart?.()) return;
    const b = req.body;
    if (typeof b === 'object' && !Array.isArray(b) && Object.keys(b).length === 0) return;
    throw new AppError('validation_failed', 'this endpoint takes no body', [{ path: '/', message: 'must be empty' }]);
  });

  // The methods each /api path answers, for OPTIONS (collected as routes are added).
  const apiRoutesSeen: { method: string; pattern: RegExp }[] = [];
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.url.includes('*')) return;
    const pattern = new RegExp(`^${route.url.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}/?$`);
    for (const m of [route.method].flat()) apiRoutesSeen.push({ method: m, pattern });
  });

  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    return payload;
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Lending management service',
        version: '1.0.0',
        description:
          'Clients, credits, installments, payments, ledger, credit plans, branches, client files, reports and audit of one business, selected by the API key. Contract 1.0.0 plus extensions.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  await app.register(publicRoutes);
  await app.register(
    async (api) => {
      requireApiKey(api as App);
      if (opts.config.rateLimitPerMinute > 0) {
        // per key, after authentication; in memory, so the limit is per API process
        await api.register(rateLimit, {
          hook: 'preHandler',
          max: opts.config.rateLimitPerMinute,
          timeWindow: 60_000,
          keyGenerator: (req) => req.auth?.keyId ?? req.ip,
          errorResponseBuilder: (_req, ctx) =>
            new AppError('rate_limited', `too many requests: at most ${ctx.max} a minute per key; retry in ${Math.ceil(ctx.ttl / 1000)} s`, undefined, {
              'retry-after': String(Math.ceil(ctx.ttl / 1000)),
            }),
        });
      }
      await api.register(apiRoutes);
      // OPTIONS (a safe method: any key) says which methods a path answers
      api.options('/*', { schema: { hide: true } }, async (req, reply) => {
        const path = req.url.split('?')[0]!;
        const methods = new Set(apiRoutesSeen.filter((r) => r.pattern.test(path)).map((r) => r.method));
        if (methods.size === 0) throw new AppError('not_found', `no route ${path}`);
        methods.add('OPTIONS');
        return reply.status(204).header('allow', [...methods].sort().join(', ')).send();
      });
      // under /api even a path or method that matches no route asks for the key first (401; a
      // read key on a write method is 403), so nothing about the API shows without a key
      api.setNotFoundHandler((req, reply) =>
        reply.status(404).send(errorBody(new AppError('not_found', `no route ${req.method} ${req.url.split('?')[0]}`))),
      );
    },
    { prefix: '/api' },
  );
  return app;
}
