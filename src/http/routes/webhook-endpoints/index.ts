// Webhook endpoints and their deliveries (docs/webhooks.md). The
// secret is in the creation's answer only; the URL rule (https://, public addresses) is the
// service's (src/services/webhookTargets.ts).
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import {
  Nullable,
  OneOf,
  Page,
  PageQuery,
  ReadOnlyFields,
  UuidParam,
  WebhookDelivery,
  WebhookEndpoint,
  documented,
  errors,
  example,
  idParams,
  ref,
} from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { pageRequest } from '../../helpers.ts';
import { write } from '../../idempotency.ts';
import { EVENT_TYPES } from '../../../services/events.ts';
import {
  createEndpoint,
  editEndpoint,
  getWebhookEndpoint,
  listEndpointDeliveries,
  listWebhookEndpoints,
  removeEndpoint,
  retryEndpointDelivery,
} from '../../../services/webhooks.ts';

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'https:// URL whose host resolves to public addresses only (http:// and private or loopback addresses too with WEBHOOK_ALLOW_PRIVATE=true); no user name or password',
});
const Events = Type.Array(OneOf([...EVENT_TYPES, '*']), {
  minItems: 1,
  maxItems: EVENT_TYPES.length + 1,
  description: 'the event types to deliver, or ["*"] for every type (also those added later)',
});
const Description = Nullable(Type.String({ maxLength: 500 }));

const CreateBody = example(
  Type.Object({ url: Url, events: Events, description: Type.Optional(Description) }, { additionalProperties: false }),
  ex.webhookEndpointInput,
);
// a record read back whole may be sent: read-only fields are accepted and ignored
const UpdateBody = example(
  Type.Object(
    {
      url: Type.Optional(Url),
      events: Type.Optional(Events),
      description: Type.Optional(Description),
      enabled: Type.Optional(
        Type.Boolean({
          description:
            'false stops sending (events are kept); true resumes: what was not delivered is retried at once with a new 3-day window, then the events of the time it was disabled, in order',
        }),
      ),
      disabled_at: Type.Optional(Type.Unknown()),
      disabled_reason: Type.Optional(Type.Unknown()),
      ...ReadOnlyFields,
    },
    { additionalProperties: false },
  ),
  { enabled: true },
);
const Created = Type.Object({
  endpoint: ref(WebhookEndpoint),
  secret: Type.String({
    description:
      "whsec_…: the key of every delivery's Lending-Signature. Shown in this answer only (and in a replay of it under the same Idempotency-Key): store it now",
  }),
});
const IdParams = idParams(ex.webhookIds.endpoint);
const DeliveryParams = Type.Object({
  id: UuidParam(ex.webhookIds.endpoint),
  deliveryId: UuidParam(ex.webhookIds.delivery),
});
const DeliveryQuery = Type.Object(
  { status: Type.Optional(WebhookDelivery.properties.status), ...PageQuery },
  { additionalProperties: false },
);

export default async function webhookRoutes(app: App) {
  app.get(
    '/webhook-endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags: ['webhooks'],
        summary: "The business's webhook endpoints, oldest first (never their secrets)",
        response: {
          200: documented(Type.Array(ref(WebhookEndpoint)), 'Every endpoint of the business', [ex.webhookEndpoint]),
        },
      },
    },
    async (req) => listWebhookEndpoints(app.db, req.auth),
  );

  app.post(
    '/webhook-endpoints',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        tags: ['webhooks'],
        summary:
          'Register a webhook endpoint: it receives the events that happen from now on; the secret is shown once',
        description:
          'A URL that is not https:// or carries a user name is 400; one whose host does not resolve, or resolves to a loopback, private, link-local or other non-public address, is 422 (WEBHOOK_ALLOW_PRIVATE=true lifts both). An unknown event type is 400. At most 20 endpoints a business (422).',
        body: CreateBody,
        response: {
          201: documented(Created, 'The endpoint, and its secret (this once)', ex.webhookEndpointCreated),
          ...errors(422),
        },
      },
    },
    async (req, reply) => write(req, reply, 201, (ctx) => createEndpoint(app.db, ctx, req.body, app.config)),
  );

  app.get(
    '/webhook-endpoints/:id',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'A webhook endpoint (never its secret)',
        params: IdParams,
        response: { 200: documented(ref(WebhookEndpoint), 'The endpoint', ex.webhookEndpoint) },
      },
    },
    async (req) => getWebhookEndpoint(app.db, req.auth, req.params.id),
  );

  app.put(
    '/webhook-endpoints/:id',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Change an endpoint (partial): url, events, description, enabled',
        description:
          'A new url is checked as on creation (400, 422). enabled: true on a disabled endpoint clears disabled_at and disabled_reason and resumes it.',
        params: IdParams,
        body: UpdateBody,
        response: {
          200: documented(ref(WebhookEndpoint), 'The endpoint as it is now', ex.webhookEndpoint),
          ...errors(422),
        },
      },
    },
    async (req) => editEndpoint(app.db, req.auth, req.params.id, req.body ?? {}, app.config),
  );

  app.delete(
    '/webhook-endpoints/:id',
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Delete an endpoint with its deliveries; answers it as it was',
        params: IdParams,
        response: { 200: documented(ref(WebhookEndpoint), 'The endpoint deleted', ex.webhookEndpoint) },
      },
    },
    async (req) => removeEndpoint(app.db, req.auth, req.params.id),
  );

  app.get(
    '/webhook-endpoints/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['webhooks'],
        summary: "An endpoint's deliveries, newest event first, with their last attempt",
        params: IdParams,
        querystring: DeliveryQuery,
        response: {
          200: documented(Page(ref(WebhookDelivery)), 'A page of deliveries', ex.page([ex.webhookDelivery])),
        },
      },
    },
    async (req) =>
      listEndpointDeliveries(app.db, req.auth, req.params.id, { status: req.query.status, ...pageRequest(req.query) }),
  );

  app.post(
    '/webhook-endpoints/:id/deliveries/:deliveryId/retry',
    {
      schema: {
        operationId: 'retryWebhookDelivery',
        tags: ['webhooks'],
        summary: 'Send a delivery again now, whatever its status, with a new 3-day window',
        description:
          'A delivered one is sent again (receivers dedupe by event id). On a disabled endpoint the delivery is queued: it goes out, in its place, when the endpoint is enabled.',
        params: DeliveryParams,
        response: {
          202: documented(ref(WebhookDelivery), 'The delivery, due now', {
            ...ex.webhookDelivery,
            status: 'pending',
            next_attempt_at: '2026-03-21T09:00:00.000Z',
            delivered_at: null,
          }),
        },
      },
    },
    async (req, reply) =>
      write(req, reply, 202, (ctx) => retryEndpointDelivery(app.db, ctx, req.params.id, req.params.deliveryId)),
  );
}
