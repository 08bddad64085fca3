import { Type } from 'typebox';
import { sql } from 'kysely';
import type { App } from '../types.ts';
import { AppError } from '../../domain/errors.ts';
import { documented } from '../schemas.ts';

export default async function opsRoutes(app: App) {
  const Status = Type.Object({ status: Type.String() });
  const status = (description: string, value: string) => documented(Status, description, { status: value });
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'checkHealth',
        tags: ['operations'],
        summary: 'The process is up',
        security: [],
        response: { 200: status('The process answers', 'ok') },
      },
    },
    async () => ({
      status: 'ok',
    }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'checkReadiness',
        tags: ['operations'],
        summary: 'The database answers',
        security: [],
        response: { 200: status('The database answers: the server can take requests', 'ready') },
      },
    },
    async () => {
      // a load balancer stops sending here while in-flight requests finish (SHUTDOWN_TIMEOUT_MS)
      if (app.draining) throw new AppError('unavailable', 'the server is shutting down');
      try {
        await sql`select 1`.execute(app.db.kysely);
      } catch {
        throw new AppError('unavailable', 'the database does not answer');
      }
      return { status: 'ready' };
    },
  );
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
