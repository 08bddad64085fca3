// The platform operators' routes (docs/users.md): list the businesses, act as one of a business's
// users (every write then audited with impersonated_by = the operator's email) and stop. Each
// start and stop replaces the session by a new one.
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import {
  Business,
  Page,
  PageQuery,
  User,
  Uuid,
  UuidParam,
  documented,
  errorResponse,
  errors,
  example,
  ref,
} from '../../schemas.ts';
import { pageRequest } from '../../helpers.ts';
import { listUsersOfBusiness } from '../../../services/users.ts';
import { requireSession } from '../../plugins/auth.ts';
import { listBusinesses, listBusinessesPage } from '../../../services/businesses.ts';
import { impersonate, stopImpersonating } from '../../../services/sessions.ts';
import { Me, started } from '../auth/index.ts';
import * as ux from '../users/examples.ts';

const SESSION = [{ session: [] }];
const refusals = { 401: errorResponse(401), 403: errorResponse(403) };

export default async function adminRoutes(app: App) {
  requireSession(app, { operator: true });

  // paged with limit/offset like the other lists; without either, the whole list as an array, as it
  // was before it was paged (the callers of before keep working)
  app.get(
    '/admin/businesses',
    {
      schema: {
        operationId: 'listBusinesses',
        tags: ['operators'],
        summary: 'The businesses of the platform, oldest first (operators)',
        description:
          'With `limit`, `offset` or `q`, a page like every list (`limit` 1 to 100, 50 when not given; `q`: a part of the name or the slug, any case); without any of them, every business as an array, the answer of before the list was paged.',
        security: SESSION,
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
            offset: Type.Optional(Type.Integer({ minimum: 0 })),
            q: Type.Optional(Type.String({ maxLength: 200, description: 'a part of the name or the slug, any case' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: documented(
            Type.Union([Page(ref(Business)), Type.Array(ref(Business))]),
            'A page of businesses (with limit, offset or q), or every business as an array (without)',
            { items: [ux.business], total: 1, limit: 50, offset: 0 },
          ),
          ...refusals,
          ...errors(400),
        },
      },
    },
    async (req) =>
      req.query.limit === undefined && req.query.offset === undefined && req.query.q === undefined
        ? listBusinesses(app.db)
        : listBusinessesPage(app.db, {
            ...pageRequest(req.query),
            ...(req.query.q === undefined ? {} : { q: req.query.q }),
          }),
  );

  // whom an operator may act as: the console's operator page lists them
  app.get(
    '/admin/businesses/:id/users',
    {
      schema: {
        operationId: 'listBusinessUsers',
        tags: ['operators'],
        summary: "A business's users, oldest first, to choose whom to act as (operators)",
        security: SESSION,
        params: Type.Object({ id: UuidParam(ux.business.id) }),
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: {
          200: documented(Page(ref(User)), 'A page of users', { items: [ux.admin], total: 1, limit: 50, offset: 0 }),
          ...refusals,
          ...errors(404),
        },
      },
    },
    async (req) => listUsersOfBusiness(app.db, req.params.id, pageRequest(req.query)),
  );

  app.post(
    '/admin/impersonate',
    {
      schema: {
        operationId: 'startImpersonation',
        tags: ['operators'],
        summary: 'Act as a user of a business: the session becomes theirs, naming the operator (operators)',
        description:
          'Every write made meanwhile is audited as the user, with impersonated_by = the operator’s email. The new session ends when the operator’s would have.',
        security: SESSION,
        body: example(Type.Object({ user_id: Uuid }, { additionalProperties: false }), { user_id: ux.userIds.admin }),
        response: {
          200: documented(Me, 'The session now acts as the user', ux.meImpersonating),
          ...refusals,
          ...errors(404, 409),
        },
      },
    },
    async (req, reply) => {
      const now = app.clock();
      const s = await impersonate(app.db, req.session!, req.body.user_id, now);
      req.log.info({ operator_id: req.session!.operator!.id, user_id: req.body.user_id }, 'impersonation started');
      return started(app, req, reply, s, now);
    },
  );

  app.post(
    '/admin/impersonate/stop',
    {
      schema: {
        operationId: 'stopImpersonation',
        tags: ['operators'],
        summary: 'Stop acting as a user: back to the operator’s own session (operators)',
        security: SESSION,
        response: {
          200: documented(Me, 'The operator’s own session again', ux.meOperator),
          ...refusals,
          ...errors(409),
        },
      },
    },
    async (req, reply) => {
      const now = app.clock();
      const s = await stopImpersonating(app.db, req.session!, now);
      req.log.info({ operator_id: req.session!.operator!.id }, 'impersonation stopped');
      return started(app, req, reply, s, now);
    },
  );
}
