// Credit applications and their approval (docs/applications.md): submitted by employees, decided
// by someone else, disbursed once into a credit.
import { Type, type Static } from 'typebox';
import type { App } from '../../types.ts';
import {
  Application,
  ApplicationStatus,
  DateInput,
  GuarantorRole,
  MoneyInput,
  Nullable,
  OneOf,
  Page,
  PageQuery,
  Uuid,
  UuidParam,
  documented,
  errors,
  example,
  ref,
} from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { pageRequest } from '../../helpers.ts';
import { write } from '../../idempotency.ts';
import { presentDetail } from '../../../services/present.ts';
import {
  approveApplication,
  disburseApplication,
  getApplicationRecord,
  listApplicationRecords,
  rejectApplication,
  submitApplication,
  withdrawApplication,
} from '../../../services/applications.ts';
import { CreditRead } from '../credits/index.ts';

const APPLICATION = '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const submitted: Static<typeof Application> = {
  id: APPLICATION,
  client_id: ex.ids.client,
  credit_config_id: ex.ids.plan,
  amount: 100000,
  branch_id: null,
  start_date: null,
  guarantors: [],
  note: 'asks for it to buy a motorcycle',
  status: 'submitted' as const,
  checks: [
    {
      rule: 'max_central_bank_situation' as const,
      outcome: 'pass' as const,
      detail: 'worst situation 1 (at most 2) per the central bank on 2026-01-15T12:58:00.000Z',
    },
    {
      rule: 'require_tax_active' as const,
      outcome: 'unknown' as const,
      detail: 'no tax authority verification of the client younger than VERIFICATION_TTL_HOURS',
    },
  ],
  submitted_by: 'user:3f0d6a52-1f2b-4c3d-9e4f-5a6b7c8d9e0f',
  decided_by: null,
  decision_note: null,
  credit_id: null,
  disbursement_method: null,
  disbursement_reference: null,
  created_at: '2026-01-15T13:00:00.000Z',
  decided_at: null,
  disbursed_at: null,
};
const approved: Static<typeof Application> = {
  ...submitted,
  status: 'approved' as const,
  decided_by: 'user:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  decision_note: 'income confirmed by payslips',
  decided_at: '2026-01-15T15:00:00.000Z',
};

const SubmitBody = example(
  Type.Object(
    {
      credit_config_id: Uuid,
      amount: MoneyInput('at most 2 decimals; must be > 0'),
      branch_id: Type.Optional(Nullable(Uuid)),
      start_date: Type.Optional(
        DateInput('YYYY-MM-DD, today or later; the credit starts then if still ahead when disbursed'),
      ),
      guarantors: Type.Optional(
        Type.Array(Type.Object({ client_id: Uuid, role: GuarantorRole }, { additionalProperties: false }), {
          maxItems: 10,
          description: 'clients of the business who back the credit; added to it when it is disbursed',
        }),
      ),
      note: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    },
    { additionalProperties: false },
  ),
  { credit_config_id: ex.ids.plan, amount: 100000, note: 'asks for it to buy a motorcycle' },
);
const ApproveBody = example(
  Type.Object(
    {
      note: Type.Optional(
        Nullable(Type.String({ maxLength: 2000, description: 'required to approve over a failed check' })),
      ),
    },
    { additionalProperties: false },
  ),
  { note: 'income confirmed by payslips' },
);
const RejectBody = example(
  Type.Object(
    { reason: Type.String({ minLength: 1, maxLength: 2000, pattern: '\\S' }) },
    { additionalProperties: false },
  ),
  { reason: 'situation 4 in the central bank registry' },
);
const DisburseBody = example(
  Type.Object(
    {
      method: OneOf(['cash', 'transfer', 'check', 'other'], { description: 'how the money was handed to the client' }),
      external_reference: Type.Optional(
        Nullable(Type.String({ maxLength: 100, description: "the transfer's or check's reference" })),
      ),
    },
    { additionalProperties: false },
  ),
  { method: 'transfer', external_reference: 'CBU-TRF-000123' },
);

const IdParams = Type.Object({ id: UuidParam(APPLICATION) });
const ListQuery = Type.Object(
  {
    status: Type.Optional(ApplicationStatus),
    branch_id: Type.Optional(Uuid),
    client_id: Type.Optional(Uuid),
    ...PageQuery,
  },
  { additionalProperties: false },
);
const Created = (description: string, e: Static<typeof Application>) => documented(ref(Application), description, e);

export default async function applicationRoutes(app: App) {
  const ttl = app.config.verification.ttlHours;

  app.post(
    '/clients/:id/applications',
    {
      config: { role: 'employee' },
      schema: {
        operationId: 'submitApplication',
        tags: ['applications'],
        summary: 'Submit a credit application for the client',
        description: `Each rule of the plan's policy becomes one check, judged from the client's latest verification of each registry younger than VERIFICATION_TTL_HOURS (${ttl} on this server) and of the CUIT the client has now; without one the check is unknown.`,
        params: Type.Object({ id: UuidParam(ex.ids.client) }),
        body: SubmitBody,
        response: { 201: Created('The application submitted', submitted), ...errors(422) },
      },
    },
    async (req, reply) =>
      write(req, reply, 201, (ctx) =>
        submitApplication(app.db, ctx, req.params.id, req.body, { verificationTtlHours: ttl }),
      ),
  );

  app.get(
    '/applications',
    {
      schema: {
        operationId: 'listApplications',
        tags: ['applications'],
        summary: 'List applications, newest first; status, branch_id and client_id narrow them',
        querystring: ListQuery,
        response: { 200: documented(Page(ref(Application)), 'A page of applications', ex.page([submitted])) },
      },
    },
    async (req) =>
      listApplicationRecords(app.db, req.auth, {
        status: req.query.status,
        branchId: req.query.branch_id,
        clientId: req.query.client_id,
        ...pageRequest(req.query),
      }),
  );

  app.get(
    '/applications/:id',
    {
      schema: {
        operationId: 'getApplication',
        tags: ['applications'],
        summary: 'Read an application',
        params: IdParams,
        response: { 200: Created('The application', approved) },
      },
    },
    async (req) => getApplicationRecord(app.db, req.auth, req.params.id),
  );

  app.post(
    '/applications/:id/approve',
    {
      config: { role: 'employee' },
      schema: {
        operationId: 'approveApplication',
        tags: ['applications'],
        summary: 'Approve a submitted application',
        description:
          'Not by who submitted it (403); employees up to approval.employee_limit, admins and full keys any amount (403); ' +
          'over a failed check only with a note (422); an application already decided or withdrawn is a 409.',
        params: IdParams,
        body: ApproveBody,
        response: { 200: Created('The application approved', approved), ...errors(409, 422) },
      },
    },
    async (req, reply) =>
      write(req, reply, 200, (ctx) => approveApplication(app.db, ctx, req.auth.role, req.params.id, req.body ?? {})),
  );

  app.post(
    '/applications/:id/reject',
    {
      config: { role: 'employee' },
      schema: {
        operationId: 'rejectApplication',
        tags: ['applications'],
        summary: 'Reject a submitted application, saying why',
        description: 'Not by who submitted it (403); an application already decided or withdrawn is a 409.',
        params: IdParams,
        body: RejectBody,
        response: {
          200: Created('The application rejected', {
            ...approved,
            status: 'rejected',
            decision_note: 'situation 4 in the central bank registry',
          }),
          ...errors(409),
        },
      },
    },
    async (req, reply) => write(req, reply, 200, (ctx) => rejectApplication(app.db, ctx, req.params.id, req.body)),
  );

  app.post(
    '/applications/:id/withdraw',
    {
      config: { role: 'employee' },
      schema: {
        operationId: 'withdrawApplication',
        tags: ['applications'],
        summary: 'Withdraw a submitted application (its submitter, an admin or a full key), before it is decided',
        params: IdParams,
        response: {
          200: Created('The application withdrawn', { ...submitted, status: 'withdrawn' }),
          ...errors(409),
        },
      },
    },
    async (req, reply) =>
      write(req, reply, 200, (ctx) => withdrawApplication(app.db, ctx, req.auth.role, req.params.id)),
  );

  app.post(
    '/applications/:id/disburse',
    {
      config: { role: 'employee' },
      schema: {
        operationId: 'disburseApplication',
        tags: ['applications'],
        summary: "Disburse an approved application: its credit is granted with the application's terms",
        description:
          'As POST /api/clients/{clientId}/credits would, starting today unless the start_date asked for is still ahead; ' +
          "the application's guarantors back the credit. Once: a second disbursement, even racing the first, is a 409.",
        params: IdParams,
        body: DisburseBody,
        response: {
          201: documented(CreditRead, 'The credit granted (credit.application_id names the application)', {
            ...ex.creditDetail,
            credit: { ...ex.creditDetail.credit, application_id: APPLICATION },
            guarantors: [],
          }),
          ...errors(409, 422),
        },
      },
    },
    async (req, reply) =>
      write(
        req,
        reply,
        201,
        (ctx) => disburseApplication(app.db, ctx, req.params.id, req.body),
        (d) => ({ ...presentDetail(d, req.auth), guarantors: d.guarantors }),
      ),
  );
}
