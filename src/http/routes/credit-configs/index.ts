import { Type, type Static } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { AppError, notFound, unprocessable } from '../../../domain/errors.ts';
import { CalendarDate, CreditConfig, CutType, DateInput, IdParams, MoneyInput, RateInput, PunitoryMode, ReadOnlyFields, errors, ref } from '../../schemas.ts';
import { writable } from '../../helpers.ts';
import { withActor } from '../../../db/connection.ts';
import {
  getCreditConfig,
  insertCreditConfig,
  listCreditConfigs,
  updateCreditConfig,
} from '../../../db/repositories/creditConfigs.ts';
import { presentCreditConfig } from '../../../services/present.ts';
import { scheduleFor, todayIn, toMoneyNumber } from '../../../domain/index.ts';


const DAYS = 36_500; // a century: anything longer is a typo
const Days = (description: string) => Type.Integer({ minimum: 0, maximum: DAYS, description });
const Rate = RateInput;

// Plan fields with the contract's constraints; defaults (DOMAIN.md) apply on creation.
const PlanFields = {
  is_active: Type.Boolean({ description: 'default true' }),
  installments_count: Type.Integer({ minimum: 1, maximum: 12, description: 'default 1' }),
  days_until_first_payment: Days('default 30'),
  cut_type: CutType,
  daily_punitory_rate: Rate('fraction a day: 0.005 = 0.5 % a day; default 0'),
  interest_rate: Rate('flat fraction over the whole credit: 0.35 = 35 %; default 0'),
  payment_day: Type.Integer({ minimum: 1, maximum: 28, description: 'day of month for cut_type monthly; default 10' }),
  grace_days: Days('tolerance before punitory applies; default 0'),
  punitory_mode: PunitoryMode,
  max_punitory_days: Days('0 = no limit; default 0'),
  punitory_cap_pct: Rate('percentage of the installment amount: 50 = 50 %; 0 = no limit; default 0'),
  write_off_days: Days('days late that write a credit off in the daily run; 0 = never; default 0'),
};
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const optional = <T extends Record<string, import('@sinclair/typebox').TSchema>>(o: T) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Type.Optional(v)])) as { [K in keyof T]: import('@sinclair/typebox').TOptional<T[K]> };

const CreateBody = Type.Object({ name: Name, ...optional(PlanFields), ...ReadOnlyFields }, { additionalProperties: false });
const UpdateBody = Type.Object({ name: Type.Optional(Name), ...optional(PlanFields), ...ReadOnlyFields }, { additionalProperties: false });

const SimulateBody = Type.Object(
  {
    amount: MoneyInput('> 0 (422 otherwise, as for a credit), at most 2 decimals'),
    start_date: Type.Optional(DateInput()),
  },
  { additionalProperties: false },
);
const Simulation = Type.Object({
  installments: Type.Array(Type.Object({ number: Type.Integer(), amount: Type.Number(), due_date: CalendarDate })),
  total: Type.Number(),
});

export default async function creditConfigRoutes(app: App) {
  app.get(
    '/credit-configs',
    { schema: { tags: ['credit plans'], summary: 'List the credit plans (contract 4)', response: { 200: Type.Array(ref(CreditConfig)), ...errors(401) } } },
    async (req) => (await listCreditConfigs(app.db.kysely, req.auth.businessId)).map(presentCreditConfig),
  );

  app.post(
    '/credit-configs',
    {
      schema: {
        tags: ['credit plans'],
        summary: 'Create a credit plan (contract 5); omitted fields take the defaults',
        body: CreateBody,
        response: { 201: ref(CreditConfig), ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => {
      const input = writable(req.body);
      const plan = await withActor(app.db.kysely, req.auth.actor, (trx) =>
        insertCreditConfig(trx, req.auth.businessId, { ...input, name: input.name.trim() }),
      );
      return reply.status(201).send(presentCreditConfig(plan));
    },
  );

  app.get(
    '/credit-configs/:id',
    { schema: { tags: ['credit plans'], summary: 'Read a credit plan', params: IdParams, response: { 200: ref(CreditConfig), ...errors(401, 404) } } },
    async (req) => {
      const plan = await getCreditConfig(app.db.kysely, req.auth.businessId, req.params.id);
      if (!plan) throw notFound('credit plan');
      return presentCreditConfig(plan);
    },
  );

  app.put(
    '/credit-configs/:id',
    {
      schema: {
        tags: ['credit plans'],
        summary: 'Edit a credit plan (contract 6): only the fields sent change; credits already created keep their terms',
        params: IdParams,
        body: UpdateBody,
        response: { 200: ref(CreditConfig), ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const body = req.body ?? {};
      const patch = writable(body);
      if (patch.name !== undefined) patch.name = patch.name.trim();
      const plan = await withActor(app.db.kysely, req.auth.actor, async (trx) => {
        const current = await getCreditConfig(trx, req.auth.businessId, req.params.id);
        if (!current) throw notFound('credit plan');
        if (Object.keys(patch).length === 0) return current;
        return updateCreditConfig(trx, req.auth.businessId, req.params.id, patch);
      });
      if (!plan) throw notFound('credit plan');
      return presentCreditConfig(plan);
    },
  );

  app.post(
    '/credit-configs/:id/simulate',
    {
      schema: {
        tags: ['credit plans'],
        summary: 'The schedule a credit of this amount would get; nothing is stored',
        params: IdParams,
        body: SimulateBody,
        response: { 200: Simulation, ...errors(400, 401, 404, 422) },
      },
    },
    async (req) => {
      const plan = await getCreditConfig(app.db.kysely, req.auth.businessId, req.params.id);
      if (!plan) throw notFound('credit plan');
      const { amount, start_date } = req.body;
      const s = scheduleFor(plan, amount, start_date ?? todayIn(req.auth.timezone));
      return {
        installments: s.installments.map((i) => ({ number: i.number, amount: toMoneyNumber(i.amount), due_date: i.dueDate })),
        total: toMoneyNumber(s.total),
      };
    },
  );
}
