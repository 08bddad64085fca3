// Collections on a credit (docs/collections.md): promises to pay and the credit's collector.
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import {
  Credit,
  DateInput,
  MoneyInput,
  Nullable,
  PromiseToPay,
  Uuid,
  UuidParam,
  documented,
  errors,
  example,
  idParams,
  ref,
} from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { assignCollector, cancelPromise, createPromise, listPromises } from '../../../services/collections.ts';
import { write } from '../../idempotency.ts';

const IdParams = idParams(ex.ids.credit);
const PromiseParams = Type.Object({ id: UuidParam(ex.ids.credit), pid: UuidParam(ex.promise.id) });

const PromiseBody = example(
  Type.Object(
    {
      amount: MoneyInput('at most 2 decimals; must be > 0'),
      promised_for: DateInput('YYYY-MM-DD; from today to today + 60 days'),
      note: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    },
    { additionalProperties: false },
  ),
  ex.promiseInput,
);

const CollectorBody = example(
  Type.Object(
    {
      user_id: Type.Union([Uuid, Type.Null()], {
        description: 'an enabled user of the business; null: no collector',
      }),
    },
    { additionalProperties: false },
  ),
  { user_id: ex.COLLECTOR },
);

export default async function creditCollectionRoutes(app: App) {
  app.post(
    '/credits/:id/promises',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md); and promises
      config: { role: 'employee' },
      schema: {
        operationId: 'createPromise',
        tags: ['collections'],
        summary: 'Record a promise to pay: an amount by a day (today to today + 60 days)',
        description:
          'Kept once the payments registered since, dated up to promised_for, add up to amount; broken once promised_for ' +
          'has passed otherwise. Active and written-off credits only (409). Event promise.created.',
        params: IdParams,
        body: PromiseBody,
        response: {
          201: documented(ref(PromiseToPay), 'The promise, pending', ex.promise),
          ...errors(409, 422),
        },
      },
    },
    async (req, reply) =>
      write(req, reply, 201, (ctx) =>
        createPromise(app.db, ctx, req.params.id, {
          amount: req.body.amount,
          promised_for: req.body.promised_for,
          note: req.body.note ?? null,
        }),
      ),
  );

  app.get(
    '/credits/:id/promises',
    {
      schema: {
        operationId: 'listPromises',
        tags: ['collections'],
        summary: "The credit's promises to pay, newest first, each with its status as of today",
        params: IdParams,
        response: {
          200: documented(Type.Array(ref(PromiseToPay)), 'The promises, newest first', [ex.promise]),
        },
      },
    },
    async (req) => listPromises(app.db, req.auth, req.params.id),
  );

  app.post(
    '/credits/:id/promises/:pid/cancel',
    {
      config: { role: 'employee' },
      schema: {
        operationId: 'cancelPromise',
        tags: ['collections'],
        summary: 'Cancel a pending promise (a kept, broken or cancelled one is 409)',
        params: PromiseParams,
        response: {
          200: documented(ref(PromiseToPay), 'The promise, cancelled', { ...ex.promise, status: 'cancelled' }),
          ...errors(409),
        },
      },
    },
    async (req, reply) => write(req, reply, 200, (ctx) => cancelPromise(app.db, ctx, req.params.id, req.params.pid)),
  );

  app.put(
    '/credits/:id/collector',
    {
      schema: {
        operationId: 'setCreditCollector',
        tags: ['collections'],
        summary: "Name the credit's collector (a user of the business), or none with null",
        params: IdParams,
        body: CollectorBody,
        response: {
          200: documented(ref(Credit), 'The credit with its collector_id', {
            ...ex.credit,
            collector_id: ex.COLLECTOR,
          }),
          ...errors(422),
        },
      },
    },
    async (req, reply) =>
      write(req, reply, 200, (ctx) => assignCollector(app.db, ctx, req.params.id, req.body.user_id)),
  );
}
