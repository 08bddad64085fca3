import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { conflict, notFound } from '../../../domain/errors.ts';
import { Client, ClientDetail, Credit, IdParams, Nullable, Page, PageQuery, ReadOnlyFields, Uuid, errors, ref } from '../../schemas.ts';
import { businessToday, cleanText, writable } from '../../helpers.ts';
import { withActor } from '../../../db/connection.ts';
import { findClientByDni, getClient, insertClient, listClients, updateClient } from '../../../db/repositories/clients.ts';
import { creditsOfClient } from '../../../db/repositories/credits.ts';
import { filesOfClient } from '../../../db/repositories/files.ts';
import { installmentsOfCredits } from '../../../db/repositories/installments.ts';
import { ledgerOfCredits } from '../../../db/repositories/ledger.ts';
import { presentCredit, presentFile, presentInstallment, presentLedgerEntry } from '../../../services/present.ts';

const Text = Nullable(Type.String({ maxLength: 200 }));
const ClientFields = {
  first_name: Type.Optional(Text),
  last_name: Type.Optional(Text),
  sex: Type.Optional(Nullable(Type.Union([Type.Literal('m'), Type.Literal('f'), Type.Literal('o')]))),
  street: Type.Optional(Text),
  street_number: Type.Optional(Text),
  floor: Type.Optional(Text),
  apartment: Type.Optional(Text),
  city: Type.Optional(Text),
  state: Type.Optional(Text),
  country: Type.Optional(Text),
  zip_code: Type.Optional(Text),
  phone: Type.Optional(Text),
  alt_phone: Type.Optional(Text),
  email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
};
const Dni = Type.String({ minLength: 1, maxLength: 32, pattern: '\\S', description: 'national identity document number; unique within the business' });

const CreateBody = Type.Object({ dni: Dni, ...ClientFields, ...ReadOnlyFields }, { additionalProperties: false });
const UpdateBody = Type.Object({ dni: Type.Optional(Dni), ...ClientFields, ...ReadOnlyFields }, { additionalProperties: false });

const ClientIdParams = Type.Object({ clientId: Uuid });

export default async function clientRoutes(app: App) {
  app.get(
    '/clients',
    {
      schema: {
        tags: ['clients'],
        summary: 'List clients (newest first); q matches a dni prefix or a name or email fragment',
        querystring: Type.Object({ q: Type.Optional(Type.String({ maxLength: 100 })), ...PageQuery }, { additionalProperties: false }),
        response: { 200: Page(ref(Client)), ...errors(400, 401) },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 50;
      const offset = req.query.offset ?? 0;
      const page = await listClients(app.db.kysely, req.auth.businessId, { q: req.query.q, limit, offset });
      return { ...page, limit, offset };
    },
  );

  app.post(
    '/clients',
    {
      schema: {
        tags: ['clients'],
        summary: 'Create a client',
        body: CreateBody,
        response: { 201: ref(Client), ...errors(400, 401, 403, 409) },
      },
    },
    async (req, reply) => {
      const input = cleanText(writable(req.body));
      const dni = req.body.dni.trim();
      const bid = req.auth.businessId;
      const created = await withActor(app.db.kysely, req.auth.actor, async (trx) => {
        if (await findClientByDni(trx, bid, dni)) throw conflict(`a client with dni ${dni} already exists`);
        return insertClient(trx, bid, { ...input, dni });
      });
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/clients/:id',
    {
      schema: {
        tags: ['clients'],
        summary: 'Read a client with its credits, installments, ledger entries and files (contract 1)',
        params: IdParams,
        response: { 200: ref(ClientDetail), ...errors(401, 404) },
      },
    },
    async (req) => {
      const bid = req.auth.businessId;
      const db = app.db.kysely;
      const client = await getClient(db, bid, req.params.id);
      if (!client) throw notFound('client');
      const credits = await creditsOfClient(db, bid, client.id);
      const ids = credits.map((c) => c.id);
      const [installments, ledger, files] = await Promise.all([
        installmentsOfCredits(db, bid, ids),
        ledgerOfCredits(db, bid, ids),
        filesOfClient(db, bid, client.id),
      ]);
      const today = businessToday(req);
      return {
        client,
        credits: credits.map(presentCredit),
        installments: installments.map((i) => presentInstallment(i, today)),
        ledgerEntries: ledger.map(presentLedgerEntry),
        files: files.map(presentFile),
      };
    },
  );

  app.put(
    '/clients/:id',
    {
      schema: {
        tags: ['clients'],
        summary: 'Edit a client (partial update: only the fields sent change)',
        params: IdParams,
        body: UpdateBody,
        response: { 200: ref(Client), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => {
      const bid = req.auth.businessId;
      const patch = cleanText(writable(req.body ?? {}));
      if (req.body?.dni !== undefined) patch.dni = req.body.dni.trim();
      return withActor(app.db.kysely, req.auth.actor, async (trx) => {
        const current = await getClient(trx, bid, req.params.id);
        if (!current) throw notFound('client');
        if (Object.keys(patch).length === 0) return current;
        if (patch.dni && (await findClientByDni(trx, bid, patch.dni, current.id))) {
          throw conflict(`a client with dni ${patch.dni} already exists`);
        }
        const updated = await updateClient(trx, bid, current.id, patch);
        if (!updated) throw notFound('client');
        return updated;
      });
    },
  );

  app.get(
    '/clients/:clientId/credits',
    {
      schema: {
        tags: ['credits'],
        summary: "List a client's credits (contract 2)",
        params: ClientIdParams,
        response: { 200: Type.Array(ref(Credit)), ...errors(401, 404) },
      },
    },
    async (req) => {
      const bid = req.auth.businessId;
      const client = await getClient(app.db.kysely, bid, req.params.clientId);
      if (!client) throw notFound('client');
      return (await creditsOfClient(app.db.kysely, bid, client.id)).map(presentCredit);
    },
  );
}

