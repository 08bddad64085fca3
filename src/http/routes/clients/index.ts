import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import {
  Client,
  ClientDetail,
  Credit,
  IdParams,
  Page,
  PageQuery,
  READ_ONLY_KEYS,
  ReadOnlyFields,
  Uuid,
  errors,
  ref,
} from '../../schemas.ts';
import { pageRequest, sendJsonText, writable } from '../../helpers.ts';
import { clientCredits, clientDetail, createClient, editClient, listClients } from '../../../services/clients.ts';

// The bodies are the record's writable fields (src/domain/records.ts), dni required on creation;
// read-only fields sent back are accepted and ignored.
const Fields = Type.Partial(Type.Omit(Client, READ_ONLY_KEYS)).properties;
const CreateBody = Type.Object(
  { ...Fields, dni: Client.properties.dni, ...ReadOnlyFields },
  { additionalProperties: false },
);
const UpdateBody = Type.Object({ ...Fields, ...ReadOnlyFields }, { additionalProperties: false });

const ClientIdParams = Type.Object({ clientId: Uuid });

export default async function clientRoutes(app: App) {
  app.get(
    '/clients',
    {
      schema: {
        tags: ['clients'],
        summary: 'List clients (newest first); q matches a dni prefix or a name or email fragment',
        querystring: Type.Object(
          { q: Type.Optional(Type.String({ maxLength: 100 })), ...PageQuery },
          { additionalProperties: false },
        ),
        response: { 200: Page(ref(Client)) },
      },
    },
    async (req) => listClients(app.db, req.auth, { q: req.query.q, ...pageRequest(req.query) }),
  );

  app.post(
    '/clients',
    {
      schema: {
        tags: ['clients'],
        summary: 'Create a client',
        body: CreateBody,
        response: { 201: ref(Client), ...errors(409) },
      },
    },
    async (req, reply) => reply.status(201).send(await createClient(app.db, req.auth, writable(req.body))),
  );

  app.get(
    '/clients/:id',
    {
      schema: {
        tags: ['clients'],
        summary: 'Read a client with its credits, installments, ledger entries and files (contract 1)',
        params: IdParams,
        response: { 200: ref(ClientDetail) },
      },
    },
    async (req, reply) => sendJsonText(reply, await clientDetail(app.db, req.auth, req.params.id)),
  );

  app.put(
    '/clients/:id',
    {
      schema: {
        tags: ['clients'],
        summary: 'Edit a client (partial update: only the fields sent change)',
        params: IdParams,
        body: UpdateBody,
        response: { 200: ref(Client), ...errors(409) },
      },
    },
    async (req) => editClient(app.db, req.auth, req.params.id, writable(req.body ?? {})),
  );

  app.get(
    '/clients/:clientId/credits',
    {
      schema: {
        tags: ['credits'],
        summary: "List a client's credits (contract 2)",
        params: ClientIdParams,
        response: { 200: Type.Array(ref(Credit)) },
      },
    },
    async (req, reply) => sendJsonText(reply, await clientCredits(app.db, req.auth, req.params.clientId)),
  );
}
