import { Type } from 'typebox';
import type { App } from '../../types.ts';
import {
  Cost,
  Credit,
  CreditBalance,
  Payment,
  CreditStatus,
  DateInput,
  MoneyInput,
  Installment,
  LedgerEntry,
  Nullable,
  Guarantor,
  OneOf,
  PAYMENT_METHODS,
  PaymentChannelFields,
  Page,
  PageQuery,
  UpdatedSinceQuery,
  Uuid,
  UuidParam,
  Waiver,
  documented,
  errors,
  example,
  idParams,
  ref,
} from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { presentCredit, presentDetail, presentPayment, presentPayoff } from '../../../services/present.ts';
import { toMoneyNumber } from '../../../domain/index.ts';
import { sendJsonText } from '../../helpers.ts';
import { creditLedger, listCredits, readCredit } from '../../../services/credits.ts';
import { creditGuarantors } from '../../../services/guarantors.ts';
import { createCredit } from '../../../services/lending/grant.ts';
import { listPayments, registerPayment, reversePayment } from '../../../services/lending/payments.ts';
import { closePayoff, payoffQuote } from '../../../services/lending/payoff.ts';
import { createWaiver, listWaivers } from '../../../services/lending/waivers.ts';
import { cancelCredit, refinanceCredit, writeOffCredit } from '../../../services/lending/lifecycle.ts';
import { write } from '../../idempotency.ts';

// Amounts: a JSON number with at most 2 decimals (more is a 400); ≤ 0 or more than owed is a
// business rule (422), checked by the use case.
const Amount = MoneyInput('at most 2 decimals; must be > 0');
const DateField = DateInput();

const CreateBody = example(
  Type.Object(
    {
      credit_config_id: Uuid,
      amount: Amount,
      branch_id: Type.Optional(
        Type.Union([Uuid, Type.Null()], {
          description:
            "the credit's branch; omitted: the signed-in user's branch when they have one (none with an API key); null: no branch",
        }),
      ),
      origin_transaction_reference: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
      start_date: Type.Optional(DateField),
    },
    { additionalProperties: false },
  ),
  ex.creditInput,
);
const PaymentBody = example(
  Type.Object(
    {
      amount: Amount,
      paid_on: Type.Optional(DateField),
      branch_id: Type.Optional(
        Type.Union([Uuid, Type.Null()], {
          description:
            "where the payment was taken; omitted: the signed-in user's branch when they have one, else the credit's (none if it was deleted); null: no branch (e.g. a bank transfer)",
        }),
      ),
      method: Type.Optional(OneOf([...PAYMENT_METHODS], { description: 'how it was paid; default cash' })),
      channel: Type.Optional(
        Nullable(Type.String({ maxLength: 40, description: "e.g. the collection network's or bank's name" })),
      ),
      external_reference: Type.Optional(
        Nullable(
          Type.String({
            maxLength: 100,
            description:
              "the channel's reference: a second payment of the business with the same channel and reference is 409 duplicate_payment",
          }),
        ),
      ),
    },
    { additionalProperties: false },
  ),
  ex.paymentInput,
);
const WriteOffBody = example(
  Type.Object(
    { reason: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }) },
    { additionalProperties: false },
  ),
  { reason: 'the client cannot be reached; collection agency gave up' },
);
const RefinanceBody = example(
  Type.Object(
    {
      credit_config_id: Uuid,
      amount: Type.Optional(Amount),
      start_date: Type.Optional(DateField),
      branch_id: Type.Optional(
        Type.Union([Uuid, Type.Null()], {
          description: "the new credit's branch; omitted: the old credit's (none if it was deleted); null: no branch",
        }),
      ),
      origin_transaction_reference: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    },
    { additionalProperties: false },
  ),
  { credit_config_id: ex.ids.plan, amount: 80000, start_date: '2026-03-20' },
);

const IdParams = idParams(ex.ids.credit);

/** A credit with its installments, ledger, balance, cost and the clients who back it (docs/api.md, "CreditDetail"). */
const CreditDetail = Type.Object({
  credit: ref(Credit),
  installments: Type.Array(ref(Installment)),
  ledgerEntries: Type.Array(ref(LedgerEntry)),
  balance: CreditBalance,
  cost: ref(Cost),
  guarantors: Type.Array(ref(Guarantor), { description: 'the clients who back the credit, oldest first' }),
});
/** The credit read (and a disbursement's answer). */
export const CreditRead = CreditDetail;
const WriteResult = Type.Object({
  credit: ref(Credit),
  installments: Type.Array(ref(Installment)),
  ledgerEntries: Type.Array(ref(LedgerEntry), {
    description:
      'only the entries this payment created: punitory posted, an early-payoff rebate, the payment slices, and ' +
      'the corrections of later payments allocated again when it is dated before them',
  }),
  balance: CreditBalance,
  cost: ref(Cost),
});
/** A payment's answer: the credit after it, and the payment's id, method, channel and reference as recorded. */
const PaymentResult = Type.Object({
  ...WriteResult.properties,
  payment_id: Type.String({
    format: 'uuid',
    description: 'the payment recorded: GET /api/credits/{id}/payments lists it, its receipt and reversal take it',
  }),
  ...PaymentChannelFields,
});
const PaymentParams = Type.Object({
  id: UuidParam(ex.ids.credit),
  paymentId: UuidParam(ex.payments[0]!.id),
});
const ReverseBody = example(
  Type.Object(
    { reason: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }) },
    { additionalProperties: false },
  ),
  { reason: 'the transfer bounced' },
);
const WaiverBody = example(
  Type.Object(
    {
      installment_id: Uuid,
      kind: OneOf(['punitory', 'charge'], { description: 'what to waive: punitory or collection charges' }),
      amount: MoneyInput('at most 2 decimals; > 0 and at most what is posted and unpaid of that part'),
      reason: Type.String({ minLength: 1, maxLength: 2000, pattern: '\\S' }),
    },
    { additionalProperties: false },
  ),
  {
    installment_id: ex.ids.installment,
    kind: 'punitory',
    amount: 150,
    reason: 'hospitalised in March; agreed with the branch manager',
  },
);
const PayoffCloseBody = example(
  Type.Object(
    {
      as_of: Type.Optional(
        DateInput('YYYY-MM-DD; default today, not before the start date nor the latest payment, not after today'),
      ),
      method: Type.Optional(
        OneOf([...PAYMENT_METHODS], { description: 'how the refund is handed back; default cash' }),
      ),
    },
    { additionalProperties: false },
  ),
  { as_of: '2026-04-01', method: 'transfer' },
);
const PayoffCloseResult = Type.Object({
  ...WriteResult.properties,
  ledgerEntries: Type.Array(ref(LedgerEntry), {
    description:
      'only the entries the close created: punitory posted, the rebate (origin rebate) and the refund (origin correction, negative)',
  }),
  payment_id: Type.String({
    format: 'uuid',
    description: 'the close, listed among the payments with kind payoff_close',
  }),
  refund: Type.Number({ description: "the amount to hand back to the client (the quote's refundable)" }),
});
const PayoffQuery = Type.Object(
  { as_of: Type.Optional(DateInput('YYYY-MM-DD; default today, not before the start date nor after today')) },
  { additionalProperties: false },
);
const PayoffMoney = (description: string) => Type.Number({ description });
const Payoff = Type.Object({
  as_of: Type.String({ format: 'date' }),
  amount: PayoffMoney('what settles the credit on as_of; a payment of exactly this amount that day closes it'),
  refundable: PayoffMoney(
    'what the client already paid beyond what settles the credit (interest of periods not begun, paid in advance); amount is then 0. 0 otherwise',
  ),
  breakdown: Type.Object({
    due: PayoffMoney('the amount still owed of installments due on or before as_of'),
    punitory: PayoffMoney('their punitory, posted and accrued, less what is paid and waived of it (VAT included)'),
    charges: PayoffMoney('collection charges posted, less what is paid and waived of them (VAT included)'),
    principal: PayoffMoney('the principal of installments due later'),
    interest: PayoffMoney('their interest accrued pro rata in the current period'),
    vat: PayoffMoney('the VAT of that interest'),
    insurance: PayoffMoney('the insurance of the current period of installments due later, VAT included'),
    fees: PayoffMoney('the fees of the current period of installments due later, VAT included'),
    rebate: PayoffMoney(
      'the interest, insurance, fees and VAT not owed (of periods not begun): written off by an early-payoff rebate',
    ),
  }),
});

const ListQuery = Type.Object(
  {
    status: Type.Optional(CreditStatus),
    client_id: Type.Optional(Uuid),
    branch_id: Type.Optional(Uuid),
    ...UpdatedSinceQuery,
    ...PageQuery,
  },
  { additionalProperties: false },
);

export default async function creditRoutes(app: App) {
  app.get(
    '/credits/:id/ledger',
    {
      schema: {
        operationId: 'listCreditLedger',
        tags: ['credits'],
        'x-contract': 3,
        summary: "The ledger entries of all the credit's installments, oldest first",
        params: IdParams,
        response: {
          200: documented(
            Type.Array(ref(LedgerEntry)),
            'The ledger entries: each installment as it was scheduled, punitory posted, and payment slices',
            ex.ledger,
          ),
        },
      },
    },
    async (req, reply) => sendJsonText(reply, await creditLedger(app.db, req.auth, req.params.id)),
  );

  app.post(
    '/clients/:clientId/credits',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'createCredit',
        tags: ['credits'],
        summary:
          "Grant a credit to the client on a plan: the schedule is built, the plan's terms are kept on the credit",
        description:
          'Flat interest: total = amount × (1 + interest_rate); every installment round(total / n) and the last one the remainder.',
        params: Type.Object({ clientId: UuidParam(ex.ids.client) }),
        body: CreateBody,
        response: {
          201: documented(
            CreditDetail,
            'The credit created, with its installments and the ledger entries of its schedule',
            { ...ex.creditCreated, guarantors: [] },
          ),
          ...errors(409, 422),
        },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const ref = b.origin_transaction_reference?.trim();
      return write(
        req,
        reply,
        201,
        (ctx) =>
          createCredit(
            app.db,
            ctx,
            {
              clientId: req.params.clientId,
              creditConfigId: b.credit_config_id,
              amount: b.amount,
              // omitted (undefined) and null differ: the signed-in user's branch, or none
              branchId: b.branch_id,
              originTransactionReference: ref ? ref : null,
              startDate: b.start_date,
            },
            { actingRole: req.auth.role },
          ),
        (d) => presentDetail(d, req.auth),
      );
    },
  );

  app.get(
    '/credits',
    {
      schema: {
        operationId: 'listCredits',
        tags: ['credits'],
        summary:
          'List credits, newest first, optionally by status, client or branch; updated_since lists the changed ones, ' +
          'oldest change first',
        querystring: ListQuery,
        response: { 200: documented(Page(ref(Credit)), 'A page of credits', ex.page([ex.credit])) },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 50;
      const offset = req.query.offset ?? 0;
      const page = await listCredits(app.db, req.auth, {
        status: req.query.status as never,
        clientId: req.query.client_id,
        branchId: req.query.branch_id,
        updatedSince: req.query.updated_since,
        limit,
        offset,
      });
      return { items: page.items.map(presentCredit), total: page.total, limit, offset };
    },
  );

  app.get(
    '/credits/:id',
    {
      schema: {
        operationId: 'getCredit',
        tags: ['credits'],
        summary: 'Read a credit with its installments (delinquency as of the business’s today) and ledger entries',
        params: IdParams,
        response: {
          200: documented(
            CreditRead,
            'The credit, its installments and ledger entries, its balance as of today and its guarantors',
            { ...ex.creditDetail, guarantors: [] },
          ),
        },
      },
    },
    async (req) => {
      const d = await readCredit(app.db.kysely, req.auth.businessId, req.params.id);
      return { ...presentDetail(d, req.auth), guarantors: await creditGuarantors(app.db, req.auth, d.credit.id) };
    },
  );

  app.post(
    '/credits/:id/payments',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'registerPayment',
        tags: ['credits'],
        summary:
          'Register a payment: punitory is posted up to paid_on, then the amount is allocated oldest installment first, punitory before amount',
        description:
          'paid_on defaults to today; it may not be in the future or before the start date (422). A payment dated before ' +
          'others is placed in date order and the later ones are allocated again (correction entries). ' +
          'amount must be > 0 and at most what is owed as of paid_on, counting the later payments (422). Refinanced, closed or cancelled credits: 409. ' +
          'Written-off credits accept payments (recoveries).',
        params: IdParams,
        body: PaymentBody,
        response: {
          201: documented(
            PaymentResult,
            'The credit after the payment, with the ledger entries the payment created',
            ex.paymentResult,
          ),
          ...errors(409, 422),
        },
      },
    },
    async (req, reply) => {
      const b = req.body;
      return write(
        req,
        reply,
        201,
        async (ctx) => {
          // branch_id omitted (undefined) and null differ: the user's or the credit's branch, or none
          const r = await registerPayment(app.db, ctx, req.params.id, {
            amount: b.amount,
            paidOn: b.paid_on,
            branchId: b.branch_id,
            method: b.method,
            channel: b.channel,
            externalReference: b.external_reference,
          });
          // docs/domain.md, "Punitory": an amount that cannot be stored never fails a payment; the credit is reported
          if (r.punitoryAtStorableMax)
            req.log.warn({ credit_id: r.credit.id }, 'punitory stopped at the storable maximum (999,999,999,999.99)');
          return r;
        },
        // only the entries this payment created
        (r) => ({
          ...presentDetail(r, req.auth, r.created),
          payment_id: r.paymentId,
          method: r.method,
          channel: r.reference.channel,
          external_reference: r.reference.externalReference,
        }),
      );
    },
  );

  app.get(
    '/credits/:id/payments',
    {
      schema: {
        operationId: 'listCreditPayments',
        tags: ['credits'],
        summary: 'The payments of a credit in the order they apply (by paid_on, then as made), reversed ones included',
        params: IdParams,
        response: { 200: documented(Type.Array(ref(Payment)), 'The payments', ex.payments) },
      },
    },
    async (req) => (await listPayments(app.db, req.auth, req.params.id)).map(presentPayment),
  );

  app.post(
    '/credits/:id/payments/:paymentId/reverse',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'reversePayment',
        tags: ['credits'],
        summary:
          'Reverse a payment (a bounced transfer, a payment on the wrong credit): its slices are cancelled by new entries and every later payment is allocated again',
        description:
          'Append-only: entries of origin reversal cancel the payment, corrections re-allocate the later payments in date order, ' +
          'punitory is recomputed up to today; a closed credit reopens. A payment is reversed once (409 the second time). ' +
          'Refinanced or cancelled credits: 409.',
        params: PaymentParams,
        body: ReverseBody,
        response: {
          200: documented(CreditDetail, 'The credit after the reversal', { ...ex.creditDetail, guarantors: [] }),
          ...errors(409),
        },
      },
    },
    async (req, reply) =>
      write(
        req,
        reply,
        200,
        (ctx) => reversePayment(app.db, ctx, req.params.id, req.params.paymentId, req.body.reason.trim()),
        (d) => presentDetail(d, req.auth),
      ),
  );

  app.post(
    '/credits/:id/waivers',
    {
      // a waiver forgives money: admins and full keys only (docs/users.md)
      config: { role: 'admin' },
      schema: {
        operationId: 'createWaiver',
        tags: ['credits'],
        summary: 'Waive punitory or collection charges of one installment, with a reason (never cash)',
        description:
          'Punitory is first posted up to today, as at any event. Then a ledger entry of type and origin waiver (negative) ' +
          'takes `amount` off what is posted and unpaid of that part of the installment: more is 422 and nothing changes. ' +
          'Waived money is no longer owed: the installment, the balance, the payoff and the reports show it. A credit whose ' +
          'installments are all paid once waived closes. Refinanced or cancelled credits: 409. Event waiver.created.',
        params: IdParams,
        body: WaiverBody,
        response: {
          201: documented(CreditDetail, 'The credit after the waiver', { ...ex.creditDetail, guarantors: [] }),
          ...errors(409, 422),
        },
      },
    },
    async (req, reply) =>
      write(
        req,
        reply,
        201,
        (ctx) =>
          createWaiver(app.db, ctx, req.params.id, {
            installmentId: req.body.installment_id,
            kind: req.body.kind,
            amount: req.body.amount,
            reason: req.body.reason,
          }),
        (d) => presentDetail(d, req.auth),
      ),
  );

  app.get(
    '/credits/:id/waivers',
    {
      schema: {
        operationId: 'listWaivers',
        tags: ['credits'],
        summary: "The credit's waivers of punitory and collection charges, newest first, with kind and reason",
        description:
          'Each waiver names its installment (id and number), what was waived (punitory or charge), the amount, the reason, ' +
          'who wrote it and when. Its id is the id of its ledger entry (type and origin waiver).',
        params: IdParams,
        response: { 200: documented(Type.Array(ref(Waiver)), 'The waivers, newest first', ex.waivers) },
      },
    },
    async (req) => listWaivers(app.db, req.auth, req.params.id),
  );

  app.get(
    '/credits/:id/payoff',
    {
      schema: {
        operationId: 'getPayoff',
        tags: ['credits'],
        summary:
          'What settles the credit on a date: everything due by then with its punitory, plus the principal of later installments and the interest accrued in the current period',
        description:
          'A payment of exactly `amount` dated as_of (and not before another payment) closes the credit: the interest not owed is ' +
          'written off by entries of origin rebate. Credits that no longer accrue (closed, refinanced, cancelled) quote 0.',
        params: IdParams,
        querystring: PayoffQuery,
        response: { 200: documented(Payoff, 'The payoff quote', ex.payoff), ...errors(422) },
      },
    },
    async (req) => presentPayoff(await payoffQuote(app.db, req.auth, req.params.id, req.query.as_of)),
  );

  app.post(
    '/credits/:id/payoff',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'closePayoff',
        tags: ['credits'],
        summary:
          'Close a credit whose payoff is 0 (what was paid exceeds what settles it): the rebate is written, the credit closes, and the refund is reported',
        description:
          'For a credit whose quote on as_of (default today) is 0: punitory is posted up to as_of, entries of origin rebate write ' +
          'off the interest (insurance, fees, VAT) not owed, what that leaves paid beyond each installment is taken back by ' +
          'entries of origin correction (negative), and the credit closes. No cash comes in: the close is recorded as a payment ' +
          'of kind payoff_close whose amount is minus `refund`, the amount to hand back to the client; reversing it reopens the ' +
          'credit, and the payments before it cannot be reversed while it stands (409). A quote above 0 is 409: pay it instead ' +
          '(POST /api/credits/{id}/payments). Only active credits (409); as_of in the future, before the start date or before ' +
          'the latest payment is 422. Events payment.created and credit.status_changed.',
        params: IdParams,
        body: PayoffCloseBody,
        response: {
          201: documented(PayoffCloseResult, 'The credit, closed, with the entries the close wrote and the refund', {
            ...ex.writeResult,
            credit: { ...ex.writeResult.credit, status: 'closed' },
            payment_id: ex.ids.payment,
            refund: 700,
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
        (ctx) => closePayoff(app.db, ctx, req.params.id, { asOf: req.body?.as_of, method: req.body?.method }),
        (r) => ({
          ...presentDetail(r, req.auth, r.created),
          payment_id: r.paymentId,
          refund: toMoneyNumber(r.refund),
        }),
      ),
  );

  app.post(
    '/credits/:id/write-off',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'writeOffCredit',
        tags: ['credits'],
        summary:
          'Write an active credit off by hand: punitory is posted up to today and accrues no more; payments are still accepted (recoveries)',
        params: IdParams,
        body: WriteOffBody,
        response: {
          200: documented(ref(Credit), 'The credit, written off', {
            ...ex.credit,
            status: 'written_off',
            updated_at: '2026-09-01T12:00:00.000Z',
            written_off_at: '2026-09-01T12:00:00.000Z',
            write_off_reason: 'the client cannot be reached; collection agency gave up',
          }),
          ...errors(409),
        },
      },
    },
    async (req, reply) =>
      write(
        req,
        reply,
        200,
        (ctx) => writeOffCredit(app.db, ctx, req.params.id, req.body.reason.trim()),
        presentCredit,
      ),
  );

  app.post(
    '/credits/:id/refinance',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'refinanceCredit',
        tags: ['credits'],
        summary:
          'Refinance an active credit: its balance (punitory up to today included) is settled and a new credit for at least that balance is created',
        description:
          'amount defaults to the balance and may not be less (422). The new credit keeps the client; its branch is branch_id when given ' +
          "(an unknown or deleted branch is 422), none when branch_id is null, otherwise the old credit's branch (unless deleted since). " +
          'When the settings require approval, an employee may not refinance (409 approval_required), as they may not grant a credit directly.',
        params: IdParams,
        body: RefinanceBody,
        response: {
          201: documented(CreditDetail, 'The new credit, with its installments and schedule entries', {
            ...ex.refinanced,
            guarantors: [],
          }),
          ...errors(409, 422),
        },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const ref = b.origin_transaction_reference?.trim();
      return write(
        req,
        reply,
        201,
        (ctx) =>
          refinanceCredit(
            app.db,
            ctx,
            req.params.id,
            {
              creditConfigId: b.credit_config_id,
              amount: b.amount,
              startDate: b.start_date,
              branchId: b.branch_id,
              originTransactionReference: ref ? ref : null,
            },
            { actingRole: req.auth.role },
          ),
        (d) => presentDetail(d, req.auth),
      );
    },
  );

  app.post(
    '/credits/:id/cancel',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'cancelCredit',
        tags: ['credits'],
        summary:
          'Cancel an active credit with no payment: status inactive; its installments stay as history and leave every outstanding figure',
        params: IdParams,
        response: {
          200: documented(ref(Credit), 'The credit, cancelled (status inactive)', {
            ...ex.credit,
            status: 'inactive',
            updated_at: '2026-01-15T13:10:00.000Z',
          }),
          ...errors(409),
        },
      },
    },
    async (req, reply) => write(req, reply, 200, (ctx) => cancelCredit(app.db, ctx, req.params.id), presentCredit),
  );
}
