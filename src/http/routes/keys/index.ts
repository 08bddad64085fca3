// The business's API keys over HTTP (docs/users.md): for signed-in admins only, never with an API
// key (a key must not mint or revoke keys). The secret is in the creation's answer, once.
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { ApiKey, Nullable, documented, example, idParams, ref } from '../../schemas.ts';
import { createKey, listKeys, revokeKey } from '../../../services/apiKeys.ts';
import { write } from '../../idempotency.ts';
import * as ux from '../users/examples.ts';

const CreateBody = example(
  Type.Object(
    {
      name: Type.Optional(
        Nullable(Type.String({ maxLength: 200, description: 'a label, e.g. the system that uses it' })),
      ),
      scope: ApiKey.properties.scope,
    },
    { additionalProperties: false },
  ),
  { name: 'ERP', scope: 'full' },
);
const Created = Type.Object({
  ...ApiKey.properties,
  key: Type.String({ description: 'the secret: shown this once, then only its prefix' }),
});
const ADMINS = { role: 'admin' as const, sessionsOnly: true };
// a key made by an operator acting as an admin would outlive the impersonation
const CREATE = { ...ADMINS, notWhileImpersonating: true };

export default async function keyRoutes(app: App) {
  app.get(
    '/keys',
    {
      config: ADMINS,
      schema: {
        operationId: 'listApiKeys',
        tags: ['users'],
        summary: "The business's API keys, revoked ones included (signed-in admins; never the secrets)",
        response: { 200: documented(Type.Array(ref(ApiKey)), 'Every key, oldest first', [ux.apiKey]) },
      },
    },
    async (req) => listKeys(app.db, req.auth.businessId),
  );

  app.post(
    '/keys',
    {
      config: CREATE,
      schema: {
        operationId: 'createApiKey',
        tags: ['users'],
        summary: 'Create an API key (signed-in admins); the secret is in this answer only',
        description: 'Not with an API key, and not by an operator acting as an admin (403): a key outlives both.',
        body: CreateBody,
        response: { 201: documented(Created, 'The key and, this once, its secret', ux.createdKey) },
      },
    },
    async (req, reply) =>
      write(
        req,
        reply,
        201,
        async (ctx) => {
          const created = await createKey(
            app.db,
            { businessId: req.auth.businessId, scope: req.body.scope, name: req.body.name?.trim() || null },
            ctx,
          );
          // the audit log has the creation (migration 019); the request log names the key too
          req.log.info(
            { key_id: created.record.id, user_id: req.auth.userId, operator_id: req.session?.operator?.id },
            'api key created',
          );
          return created;
        },
        ({ record, key }) => ({ ...record, key }),
      ),
  );

  app.delete(
    '/keys/:id',
    {
      config: ADMINS,
      schema: {
        operationId: 'revokeApiKey',
        tags: ['users'],
        summary: 'Revoke an API key: refused from the next request on, by every server process (signed-in admins)',
        description: 'Revoking twice answers the first revoked_at.',
        params: idParams(ux.userIds.key),
        response: {
          200: documented(ref(ApiKey), 'The key, revoked', { ...ux.apiKey, revoked_at: '2026-03-21T09:00:00.000Z' }),
        },
      },
    },
    async (req) => revokeKey(app.db, req.params.id, req.auth),
  );
}
