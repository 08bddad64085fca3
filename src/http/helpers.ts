import type { FastifyReply } from 'fastify';
import type { Database, JsonText } from '../services/context.ts';
import type { Mailer } from '../mail/transport.ts';
import type { Config } from '../config.ts';
import { type JsonSchema, PageQuery, READ_ONLY_KEYS } from './schemas.ts';

/** Drops read-only fields sent back in a body (id, business_id, created_at, updated_at). */
export function writable<T extends object>(body: T): Omit<T, (typeof READ_ONLY_KEYS)[number]> {
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const k of READ_ONLY_KEYS) delete out[k];
  return out as never;
}

/** The page a list query asks for; the validator has filled PageQuery's defaults, this tells TypeScript so. */
export const pageRequest = (q: { limit?: number; offset?: number }) => ({
  limit: q.limit ?? ((PageQuery.limit as JsonSchema).default as number),
  offset: q.offset ?? ((PageQuery.offset as JsonSchema).default as number),
});

/**
 * Sends a document the database serialized (services/context.ts JsonText): a string with a JSON
 * content type goes out as it is, skipping the response serializer (the route still declares its
 * schema, for the OpenAPI document and the clients generated from it).
 */
export function sendJsonText(reply: FastifyReply, body: JsonText) {
  return reply.type('application/json; charset=utf-8').send(body as never);
}

/** What the e-mail services need of the app: its database, its transport and the attempts allowed. */
export const mailDeps = (app: { db: Database; mailer: Mailer | null; config: Config }) => ({
  db: app.db,
  mailer: app.mailer,
  maxAttempts: app.config.mail?.maxAttempts ?? 1,
});
