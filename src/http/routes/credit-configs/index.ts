import { Type } from 'typebox';
import type { App } from '../../types.ts';
import {
  Cost,
  CalendarDate,
  CreditConfig,
  DateInput,
  OneOf,
  MoneyInput,
  READ_ONLY_KEYS,
  ReadOnlyFields,
  documented,
  errors,
  example,
  idParams,
  ref,
} from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { sendJsonText, writable } from '../../helpers.ts';
import { write } from '../../idempotency.ts';
import { createPlan, editPlan, getPlan, listPlans, simulate } from '../../../services/creditPlans.ts';

// The record's writable fields with their limits and defaults (src/domain/records.ts), name
// required on creation; read-only fields sent back are accepted and ignored.
const Fields = Type.Partial(Type.Omit(CreditConfig, READ_ONLY_KEYS)).properties;
const CreateBody = example(
  Type.Object({ ...Fields, name: CreditConfig.properties.name, ...ReadOnlyFields }, { additionalProperties: false }),
  ex.planInput,
);
const UpdateBody = example(Type.Object({ ...Fields, ...ReadOnlyFields }, { additionalProperties: false }), {
  is_active: false,
});

const SimulateBody = example(
  Type.Object(
    {
      amount: MoneyInput('> 0 (422 otherwise, as for a credit), at most 2 decimals'),
      start_date: Type.Optional(DateInput()),
    },
    { additionalProperties: false },
  ),
  { amount: 100000, start_date: '2026-01-15' },
);
const IdParams = idParams(ex.ids.plan);
const Simulation = Type.Object({
  installments: Type.Array(
    Type.Object({
      number: Type.Integer(),
      amount: Type.Number(),
      due_date: CalendarDate,
      principal: Type.Number(),
      interest: Type.Number(),
      vat: Type.Number({ description: 'the VAT of the interest, the insurance and the fees' }),
      insurance: Type.Number(),
      fees: Type.Number(),
    }),
  ),
  total: Type.Number(),
  cost: ref(Cost),
  fees: Type.Array(
    Type.Object({
      type: OneOf(['origination', 'insurance', 'admin']),
      amount: Type.Number({ description: 'the fee, VAT aside (insurance and admin: over every installment)' }),
      vat: Type.Number({ description: "the fee's VAT" }),
      financed: Type.Boolean({
        description:
          'origination: true when added to the principal the schedule is built on, false when deducted from the cash handed over; insurance and admin (added to the installments): false',
      }),
    }),
    {
      description:
        "the plan's fees on this amount, in this order, each only when it comes to more than 0; empty when it has none",
    },
  ),
  disbursed: Type.Number({
    description: 'the cash the client would be handed: the amount, less a deducted fee and its VAT',
  }),
});

export default async function creditConfigRoutes(app: App) {
  app.get(
    '/credit-configs',
    {
      schema: {
        operationId: 'listCreditConfigs',
        tags: ['credit plans'],
        'x-contract': 4,
        summary: 'List the credit plans',
        response: {
          200: documented(Type.Array(ref(CreditConfig)), 'Every credit plan of the business', [ex.plan]),
        },
      },
    },
    async (req, reply) => sendJsonText(reply, await listPlans(app.db, req.auth)),
  );

  app.post(
    '/credit-configs',
    {
      schema: {
        operationId: 'createCreditConfig',
        tags: ['credit plans'],
        'x-contract': 5,
        summary: 'Create a credit plan; omitted fields take the defaults',
        body: CreateBody,
        // 422: fees that contradict each other (docs/api.md, "Fees and charges")
        response: {
          201: documented(ref(CreditConfig), 'The plan created, every field filled in', ex.plan),
          ...errors(422),
        },
      },
    },
    async (req, reply) => write(req, reply, 201, (ctx) => createPlan(app.db, ctx, writable(req.body))),
  );

  app.get(
    '/credit-configs/:id',
    {
      schema: {
        operationId: 'getCreditConfig',
        tags: ['credit plans'],
        summary: 'Read a credit plan',
        params: IdParams,
        response: { 200: documented(ref(CreditConfig), 'The plan', ex.plan) },
      },
    },
    async (req) => getPlan(app.db, req.auth, req.params.id),
  );

  app.put(
    '/credit-configs/:id',
    {
      schema: {
        operationId: 'updateCreditConfig',
        tags: ['credit plans'],
        'x-contract': 6,
        summary: 'Edit a credit plan: only the fields sent change; credits already created keep their terms',
        params: IdParams,
        body: UpdateBody,
        response: {
          200: documented(ref(CreditConfig), 'The whole plan as it is now', {
            ...ex.plan,
            is_active: false,
            updated_at: '2026-06-01T12:00:00.000Z',
          }),
          ...errors(422),
        },
      },
    },
    async (req) => editPlan(app.db, req.auth, req.params.id, writable(req.body ?? {})),
  );

  app.post(
    '/credit-configs/:id/simulate',
    {
      // nothing is written: a retry computes the schedule again, with or without a key; any
      // signed-in user may simulate (a read key still may not: it is a POST)
      config: { idempotency: 'ignored', role: 'viewer' },
      schema: {
        operationId: 'simulateCredit',
        tags: ['credit plans'],
        summary: 'The schedule a credit of this amount would get; nothing is stored',
        params: IdParams,
        body: SimulateBody,
        response: {
          200: documented(Simulation, 'The installments and total a credit of this amount would have', ex.simulation),
          ...errors(422),
        },
      },
    },
    async (req) =>
      simulate(app.db, req.auth, req.params.id, { amount: req.body.amount, startDate: req.body.start_date }),
  );
}
