// The Idempotency-Key header on every POST under /api (docs/api.md, Idempotency keys).
//
// How a route gets it: install() adds, to every POST registered in the /api scope (now or later),
// the header to its schema (so the OpenAPI document shows it and a malformed key is a 400), a
// look-up that replays a stored answer before the handler runs, and a check that the answer was
// stored. The handler runs its use case through write(), which hands the use case a context
// whose beforeCommit stores the answer:
//
//   async (req, reply) => write(req, reply, 201, (ctx) => createBranch(app.db, ctx, input(req.body)))
//
// Why this shape. The answer must be stored in the write's own transaction, and the use cases
// open their transactions themselves (withActor, one each). Every use case already receives the
// request's context and gives it to withActor, so the hook travels in that context: no use case
// takes a parameter for it, and withActor runs it last in the transaction (src/db/connection.ts).
// Keeping the transaction open until the handler has answered was the other way; it would hold
// the embedded database's one session (and an upload's bytes) through code that was never meant
// to run inside a transaction. The price: the hook sees the use case's result, not the handler's
// answer, so write() takes the function that makes the answer from the result (identity when the
// use case's result is the answer) and the use case returns its transaction's result as it is.
//
// A POST that writes nothing (simulate) says `config: { idempotency: 'ignored' }`: the header is
// declared and checked, and changes nothing. Every other POST honours it, those whose answer is a
// secret shown once (POST /api/keys) too: the stored answer is sealed under the key
// (src/services/idempotency.ts).
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import {
  type Answer,
  type IdempotencyScope,
  KeyTaken,
  requestHash,
  storeAnswer,
  storedAnswer,
} from '../services/idempotency.ts';
import { conflict } from '../domain/errors.ts';
import type { App, AuthContext } from './types.ts';
import { errorResponse } from './schemas.ts';

/** The header, as every POST under /api declares it. */
export const IdempotencyKeyHeader = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x21-\\x7e]+$',
  description:
    'optional: 1 to 255 visible ASCII characters you choose (your own operation id). A retry with the same key and ' +
    'the same request answers the first answer again, with Idempotent-Replayed: true, and writes nothing; the same ' +
    'key with another request is 409. Kept IDEMPOTENCY_TTL_HOURS (24), then it may be used again.',
  examples: ['erp-receipt-000183'],
});

/** The same header on a POST that writes nothing: accepted, checked, without effect. */
const IgnoredKeyHeader = Type.String({
  ...IdempotencyKeyHeader,
  description: 'accepted for uniformity and ignored: this operation writes nothing, so a retry is already safe',
});

interface Pending {
  key: string;
  /** what makes two requests the same: [method, path, body]; an upload's is set when its bytes have arrived */
  request: (() => unknown) | null;
  hash: string | null;
  /** the answer was stored with the write, or a stored one was replayed */
  settled: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the request's Idempotency-Key, when it sent one to a route that honours it */
    idempotency: Pending | null;
  }
  interface FastifyContextConfig {
    /** 'ignored': a POST that writes nothing; the key is accepted and changes nothing. */
    idempotency?: 'ignored';
  }
}

/**
 * Whose key it is: the business and the caller in it (the audit actor: the API key or the user,
 * with the operator acting as them): another caller's same key is another request.
 */
const scopeOf = (auth: AuthContext): IdempotencyScope => ({
  businessId: auth.businessId,
  caller: auth.impersonatedBy ? `${auth.actor}|${auth.impersonatedBy}` : auth.actor,
});

const isMultipart = (req: FastifyRequest) => /^multipart\//i.test(String(req.headers['content-type'] ?? ''));

/** Sends a body already written as JSON text (as the route's serializer wrote it), unchanged. */
function sendText(reply: FastifyReply, status: number, body: string) {
  return reply.status(status).type('application/json; charset=utf-8').send(body);
}

function replay(reply: FastifyReply, a: Answer) {
  return sendText(reply.header('idempotent-replayed', 'true'), a.status, a.body);
}

function withHeader(headers: unknown, header: unknown) {
  const h = (headers ?? {}) as { properties?: Record<string, unknown> };
  return { ...h, type: 'object', properties: { ...h.properties, 'idempotency-key': header } };
}

const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Gives every POST route registered after it in this scope the header (see the top of the file). */
export function install(app: App) {
  app.decorateRequest('idempotency', null);
  const ttl = app.config.idempotencyTtlHours;

  async function lookUp(req: FastifyRequest, reply: FastifyReply) {
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string') return;
    // an upload is streamed: what it is is known once its bytes have arrived (receiveFile
    // describes it), so it is compared with a stored one when the write stores its key
    const multipart = isMultipart(req);
    const request = multipart ? null : () => [req.method, req.url.split('?')[0], req.body ?? null];
    const p: Pending = { key, request, hash: request && requestHash(request()), settled: false };
    req.idempotency = p;
    if (!p.hash) return;
    const found = await storedAnswer(app.db.kysely, scopeOf(req.auth), key, p.hash, ttl);
    if (found) {
      p.settled = true;
      return replay(reply, found);
    }
  }

  async function checkStored(req: FastifyRequest, reply: FastifyReply) {
    if (req.idempotency && !req.idempotency.settled && reply.statusCode < 300)
      req.log.error(
        { route: req.routeOptions.url },
        'a write answered an Idempotency-Key without storing its answer: run its use case through write() (src/http/idempotency.ts)',
      );
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    if (!asList(route.method).includes('POST')) return;
    const ignored = route.config?.idempotency === 'ignored';
    const header = ignored ? IgnoredKeyHeader : IdempotencyKeyHeader;
    route.schema = { ...route.schema, headers: withHeader(route.schema?.headers, header) };
    if (ignored) return;
    // another request under the key is a 409: declared on each route that honours the key
    const response = (route.schema.response ?? {}) as Record<string, unknown>;
    if (!response['409'])
      route.schema.response = {
        ...response,
        409: errorResponse(409, {
          error: 'this Idempotency-Key was already used for a different request',
          code: 'conflict',
        }),
      };
    route.preHandler = [...asList(route.preHandler), lookUp];
    route.onResponse = [...asList(route.onResponse), checkStored];
  });
}

/**
 * For a multipart route: what makes two uploads the same request, once the bytes have arrived.
 * A no-op where the request sent no key.
 */
export function describeRequest(req: FastifyRequest, request: () => unknown) {
  if (req.idempotency) req.idempotency.request = () => [req.method, req.url.split('?')[0], request()];
}

/**
 * The answer as the route's response schema writes it: exactly what is sent, and what a replay
 * sends. Written once: the same text is sealed, stored and sent.
 */
function asSent(reply: FastifyReply, status: number, body: unknown): string {
  const serialize = reply.getSerializationFunction(String(status)) as ((doc: unknown) => string) | undefined;
  return serialize ? serialize(body) : JSON.stringify(body);
}

/**
 * Runs a write's use case and answers `status` (or status(result), for a write that may find its
 * answer already made: 200 instead of 201) with answer(result). With an Idempotency-Key,
 * the use case gets a context whose beforeCommit stores the answer in its transaction; if
 * another request stored the key first, the write rolls back and that request's answer is
 * replayed (or 409 when it was another request).
 */
export async function write<R>(
  req: FastifyRequest,
  reply: FastifyReply,
  status: number | ((result: R) => number),
  run: (ctx: AuthContext) => Promise<R>,
  answer: (result: R) => unknown = (r) => r,
): Promise<FastifyReply> {
  const statusOf = (r: R) => (typeof status === 'function' ? status(r) : status);
  const p = req.idempotency;
  if (!p) {
    const result = await run(req.auth);
    return reply.status(statusOf(result)).send(answer(result));
  }
  const { db, config } = req.server as App;
  const scope = scopeOf(req.auth);
  let stored: Answer | undefined;
  const ctx: AuthContext = {
    ...req.auth,
    beforeCommit: async (trx, result) => {
      if (stored) throw new Error('a use case ran one request’s beforeCommit in two transactions');
      if (!p.request) throw new Error('a multipart write did not describe its request (describeRequest)');
      p.hash ??= requestHash(p.request());
      const s = statusOf(result as R);
      const a = { status: s, body: asSent(reply, s, answer(result as R)) };
      await storeAnswer(trx, scope, p.key, p.hash, a, config.idempotencyTtlHours);
      stored = a;
    },
  };
  let result: R;
  try {
    result = await run(ctx);
  } catch (err) {
    if (!(err instanceof KeyTaken)) throw err;
    // the same key raced in from another request: its write won, this one rolled back whole
    const winner = await storedAnswer(db.kysely, scope, p.key, p.hash!, config.idempotencyTtlHours);
    if (!winner) throw conflict('another request with this Idempotency-Key was being written; retry');
    p.settled = true;
    return replay(reply, winner);
  }
  p.settled = stored !== undefined;
  return stored ? sendText(reply, stored.status, stored.body) : reply.status(statusOf(result)).send(answer(result));
}
