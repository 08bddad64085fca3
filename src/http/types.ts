import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Database } from '../services/context.ts';
import type { Config } from '../config.ts';
import type { FileStorage } from '../storage/storage.ts';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface AuthContext {
  businessId: string;
  keyId: string;
  scope: 'read' | 'full';
  /** who the audit log names for writes made by this request */
  actor: string;
  /** IANA time zone of the business: its "today" */
  timezone: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
    config: Config;
    storage: FileStorage;
  }
  interface FastifyRequest {
    auth: AuthContext;
  }
}
