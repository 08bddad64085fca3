import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ActorContext, Clock, Database } from '../services/context.ts';
import type { Config } from '../config.ts';
import type { FileStorage } from '../storage/storage.ts';
import type { KeyCache } from '../services/apiKeys.ts';
import type { Role } from '../domain/access.ts';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * Who the request acts as (its actor names the key or the user for the audit log), for which
 * business, and when: an API key (keyId, scope) or a user's session (userId, role, sessionId).
 */
export interface AuthContext extends ActorContext {
  keyId: string | null;
  scope: 'read' | 'full' | null;
  userId: string | null;
  role: Role | null;
  sessionId: string | null;
}

import type { Mailer } from '../mail/transport.ts';

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
    config: Config;
    storage: FileStorage;
    clock: Clock;
    keyCache: KeyCache | null;
    /** where e-mail goes (null without SMTP_URL: nothing is sent) */
    mailer: Mailer | null;
    /** the server is shutting down: /readyz answers 503 */
    draining: boolean;
  }
  interface FastifyRequest {
    auth: AuthContext;
  }
}
