// The public lead form: POST /public/{business_slug}/leads, no API key (docs/leads.md). Limited
// per address twice: the per-minute limit of every public route and the leads' own per hour
// (routes/index.ts registers it inside both).
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { Lead, MAX_MONEY, MONEY_FORMAT, Nullable, Slug, Uuid, documented, example } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { submitLead } from '../../../services/leads.ts';

const L = Lead.properties;
const SubmitBody = example(
  Type.Object(
    {
      first_name: L.first_name,
      last_name: L.last_name,
      dni: L.dni,
      phone: Type.Optional(L.phone),
      email: Type.Optional(L.email),
      amount_requested: Type.Optional(
        Nullable(
          Type.Number({
            format: MONEY_FORMAT,
            exclusiveMinimum: 0,
            maximum: MAX_MONEY,
            description: 'the amount asked for: > 0, at most 2 decimals',
          }),
        ),
      ),
      message: Type.Optional(L.message),
      website: Type.Optional(
        Nullable(
          Type.String({
            maxLength: 2000,
            description:
              'a field the form hides from people: leave it empty. A request with it filled is answered as usual and dropped',
          }),
        ),
      ),
    },
    { additionalProperties: false },
  ),
  ex.leadInput,
);

// a slug that cannot be one names no business: 404, like a malformed id
const SlugParams = Type.Object({ business_slug: Type.String({ ...Slug, examples: [ex.leadIds.slug] }) });

export default async function publicLeadRoutes(app: App) {
  app.post(
    '/public/:business_slug/leads',
    {
      schema: {
        operationId: 'submitLead',
        tags: ['leads'],
        summary: 'Ask a business for a credit (public: no API key; limited per address)',
        description:
          'The business is named by its slug. first_name, last_name, dni and a phone or an email are required. ' +
          'Limited per client address: PUBLIC_RATE_LIMIT a minute and LEADS_RATE_LIMIT_PER_HOUR an hour (429 with Retry-After).',
        security: [],
        params: SlugParams,
        body: SubmitBody,
        response: {
          201: documented(Type.Object({ id: Uuid }), 'The lead received', { id: ex.leadIds.lead }),
        },
      },
    },
    async (req, reply) => {
      const { id, stored } = await submitLead(app.db, app.clock, req.params.business_slug, req.body);
      if (!stored)
        req.log.info({ business_slug: req.params.business_slug }, 'lead dropped: the hidden field was filled');
      return reply.status(201).send({ id });
    },
  );
}
