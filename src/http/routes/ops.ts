import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { App } from '../types.ts';
import { AppError } from '../../domain/errors.ts';

export default async function opsRoutes(app: App) {
  const Status = Type.Object({ status: Type.String() });
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], summary: 'The process is up', security: [], response: { 200: Status } } },
    async () => ({
      status: 'ok',
    }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'The database answers',
        security: [],
        response: { 200: Status },
      },
    },
    async () => {
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
