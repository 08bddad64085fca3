import { Type } from 'typebox';
import type { App } from '../../types.ts';
import {
  Client,
  ClientDetail,
  Credit,
  Page,
  PageQuery,
  READ_ONLY_KEYS,
  ReadOnlyFields,
  UpdatedSinceQuery,
  UuidParam,
  documented,
  errors,
  example,
  idParams,
  ref,
} from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { pageRequest, sendJsonText, writable } from '../../helpers.ts';
import { write } from '../../idempotency.ts';
import { clientCredits, clientDetail, createClient, editClient, listClients } from '../../../services/clients.ts';

// The bodies are the record's writable fields (src/domain/records.ts), dni required on creation;
// read-only fields sent back are accepted and ignored.
const Fields = Type.Partial(Type.Omit(Client, READ_ONLY_KEYS)).properties;
const CreateBody = example(
  Type.Object({ ...Fields, dni: Client.properties.dni, ...ReadOnlyFields }, { additionalProperties: false }),
  ex.clientInput,
);
const UpdateBody = example(Type.Object({ ...Fields, ...ReadOnlyFields }, { additionalProperties: false }), {
  phone: '+54 11 5555-9876',
  street: 'Av. Rivadavia',
  street_number: '4500',
});

const IdParams = idParams(ex.ids.client);
const ClientIdParams = Type.Object({ clientId: UuidParam(ex.ids.client) });

export default async function clientRoutes(app: App) {
  app.get(
    '/clients',
    {
      schema: {
        operationId: 'listClients',
        tags: ['clients'],
        summary:
          'List clients (newest first); q matches a dni or cuit prefix or a name or email fragment; ' +
          'updated_since lists the changed ones, oldest change first',
        querystring: Type.Object(
          { q: Type.Optional(Type.String({ maxLength: 100, examples: ['garc'] })), ...UpdatedSinceQuery, ...PageQuery },
          { additionalProperties: false },
        ),
        response: { 200: documented(Page(ref(Client)), 'A page of clients', ex.page([ex.client])) },
      },
    },
    async (req) =>
      listClients(app.db, req.auth, {
        q: req.query.q,
        updatedSince: req.query.updated_since,
        ...pageRequest(req.query),
      }),
  );

  app.post(
    '/clients',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'createClient',
        tags: ['clients'],
        summary: 'Create a client',
        body: CreateBody,
        response: { 201: documented(ref(Client), 'The client created', ex.client), ...errors(409) },
      },
    },
    async (req, reply) => write(req, reply, 201, (ctx) => createClient(app.db, ctx, writable(req.body))),
  );

  app.get(
    '/clients/:id',
    {
      schema: {
        operationId: 'getClient',
        tags: ['clients'],
        'x-contract': 1,
        summary: 'Read a client with its credits, installments, ledger entries and files',
        params: IdParams,
        response: {
          200: documented(
            ref(ClientDetail),
            'The client with its credits, their installments and ledger entries, and its files',
            ex.clientDetail,
          ),
        },
      },
    },
    async (req, reply) => sendJsonText(reply, await clientDetail(app.db, req.auth, req.params.id)),
  );

  app.put(
    '/clients/:id',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'updateClient',
        tags: ['clients'],
        summary: 'Edit a client (partial update: only the fields sent change)',
        params: IdParams,
        body: UpdateBody,
        response: {
          200: documented(ref(Client), 'The client as it is now', {
            ...ex.client,
            phone: '+54 11 5555-9876',
            street: 'Av. Rivadavia',
            street_number: '4500',
            updated_at: '2026-03-20T15:41:10.480Z',
          }),
          ...errors(409),
        },
      },
    },
    async (req) => editClient(app.db, req.auth, req.params.id, writable(req.body ?? {})),
  );

  app.get(
    '/clients/:clientId/credits',
    {
      schema: {
        operationId: 'listClientCredits',
        tags: ['credits'],
        'x-contract': 2,
        summary: "List a client's credits",
        params: ClientIdParams,
        response: { 200: documented(Type.Array(ref(Credit)), "The client's credits", [ex.credit]) },
      },
    },
    async (req, reply) => sendJsonText(reply, await clientCredits(app.db, req.auth, req.params.clientId)),
  );
}
