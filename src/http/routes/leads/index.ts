// A business's leads (docs/leads.md): listed, read, converted into a client. The form that
// creates them is public (public.ts).
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import {
  Client,
  Lead,
  LeadStatus,
  Page,
  PageQuery,
  READ_ONLY_KEYS,
  documented,
  errors,
  example,
  idParams,
  ref,
} from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { pageRequest } from '../../helpers.ts';
import { write } from '../../idempotency.ts';
import { convertLead, getLead, listLeads } from '../../../services/leads.ts';
import { presentLead } from '../../../services/present.ts';

// what the employee completes or corrects: any writable field of the client, all optional (the
// lead gives first_name, last_name, dni, phone and email)
const ConvertBody = example(
  Type.Object(Type.Partial(Type.Omit(Client, READ_ONLY_KEYS)).properties, { additionalProperties: false }),
  ex.leadConversionInput,
);

const IdParams = idParams(ex.leadIds.lead);

export default async function leadRoutes(app: App) {
  app.get(
    '/leads',
    {
      schema: {
        operationId: 'listLeads',
        tags: ['leads'],
        summary:
          'List leads (newest first); status narrows, q matches a dni or phone fragment or a name or email fragment',
        querystring: Type.Object(
          {
            status: Type.Optional(LeadStatus),
            q: Type.Optional(Type.String({ maxLength: 100, examples: ['perez'] })),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: documented(Page(ref(Lead)), 'A page of leads', ex.page([ex.lead])) },
      },
    },
    async (req) => {
      const page = await listLeads(app.db, req.auth, {
        status: req.query.status,
        q: req.query.q,
        ...pageRequest(req.query),
      });
      return { ...page, items: page.items.map(presentLead) };
    },
  );

  app.get(
    '/leads/:id',
    {
      schema: {
        operationId: 'getLead',
        tags: ['leads'],
        summary: 'Read a lead',
        params: IdParams,
        response: { 200: documented(ref(Lead), 'The lead', ex.leadConverted) },
      },
    },
    async (req) => presentLead(await getLead(app.db, req.auth, req.params.id)),
  );

  app.post(
    '/leads/:id/convert',
    {
      // converting a lead creates a client: an employee's write, like POST /api/clients
      config: { role: 'employee' },
      schema: {
        operationId: 'convertLead',
        tags: ['leads'],
        summary:
          'Create a client from a lead; the lead becomes converted (409 when it was, or when a client has its dni)',
        description:
          "The client gets the lead's first_name, last_name, dni, phone and email; the body may complete or correct any client field. " +
          'The client is created and the lead marked converted in one transaction. 409 when the lead was converted already, ' +
          'or when a client of the business has the dni (or the cuit given): the lead stays new.',
        params: IdParams,
        body: ConvertBody,
        response: { 201: documented(ref(Client), 'The client created from the lead', ex.leadClient), ...errors(409) },
      },
    },
    async (req, reply) => write(req, reply, 201, (ctx) => convertLead(app.db, ctx, req.params.id, req.body ?? {})),
  );
}
