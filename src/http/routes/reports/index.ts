import { hiddenTablesFor } from '../../../services/audit.ts';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { AppError, invalid } from '../../../domain/errors.ts';
import { CalendarDate, DateInput, Money, Nullable, OneOf, Uuid, documented } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { compareDates } from '../../../domain/index.ts';
import {
  BOUND_PATTERN,
  DATASETS,
  exportCsv,
  parseBound,
  collectionsReport,
  portfolioSummary,
  type Bound,
} from '../../../services/reports.ts';

const Ratio = Type.Number({ description: 'amount / outstanding, rounded to 4 decimals; 0 when outstanding is 0' });
const AmountRatio = Type.Object({ amount: Money, ratio: Ratio });
const Situation = Type.Object({ clients: Type.Integer(), outstanding: Money });

const CollectionFigures = {
  payments: Type.Integer({ description: 'payments dated in the period' }),
  amount: Money,
  reversed_payments: Type.Integer({ description: 'of those, how many were reversed since' }),
  reversed_amount: Money,
};
const Collections = Type.Object({
  from: CalendarDate,
  to: CalendarDate,
  group_by: OneOf(['day', 'method', 'channel', 'branch']),
  rows: Type.Array(
    Type.Object({
      key: Nullable(Type.String({ description: 'the day, method, channel or branch id; null: no channel or branch' })),
      ...CollectionFigures,
    }),
  ),
  totals: Type.Object(CollectionFigures),
});

const Summary = Type.Object(
  {
    as_of: CalendarDate,
    clients: Type.Integer(),
    credits: Type.Object({
      active: Type.Integer(),
      refinanced: Type.Integer(),
      closed: Type.Integer(),
      written_off: Type.Integer(),
      inactive: Type.Integer(),
    }),
    disbursed: Type.Number({
      description: 'cash lent: the disbursed of credits that are not refinancings (their amounts less deducted fees)',
    }),
    disbursed_refinanced: Type.Number({
      description:
        'the disbursed of credits that refinance another (the balance moved, and any new money on top; a deducted fee is not in it)',
    }),
    outstanding: Money,
    written_off_outstanding: Money,
    overdue: Money,
    par: Type.Object({ par1: AmountRatio, par30: AmountRatio, par60: AmountRatio, par90: AmountRatio }),
    situations: Type.Object(
      { '1': Situation, '2': Situation, '3': Situation, '4': Situation, '5': Situation },
      {
        description:
          "central bank debtor situations by each client's worst days late: 1 up to 31, 2 up to 90, 3 up to 180, 4 up to 365, 5 beyond",
      },
    ),
    collected: Type.Object({ day: Money, month: Money }),
    branches: Type.Array(
      Type.Object({
        branch_id: Nullable(Uuid),
        name: Nullable(Type.String()),
        outstanding: Money,
        overdue: Money,
        par30: AmountRatio,
      }),
      { description: 'one row a branch; a row with branch_id null holds the credits without a branch' },
    ),
  },
  { title: 'PortfolioSummary' },
);

const BoundParam = Type.String({
  pattern: BOUND_PATTERN,
  description: 'YYYY-MM-DD (a whole day in the business time zone) or an RFC 3339 date-time with offset',
});

function bound(name: 'from' | 'to', v: string | undefined): Bound | undefined {
  if (v === undefined) return undefined;
  const b = parseBound(v);
  if (!b) throw invalid(`/${name}`, 'is not a real date or date-time');
  return b;
}

export default async function reportRoutes(app: App) {
  app.get(
    '/reports/summary',
    {
      schema: {
        operationId: 'getPortfolioSummary',
        tags: ['reports'],
        summary: 'Portfolio figures as of a date (default: the business today), optionally for one branch',
        querystring: Type.Object(
          {
            as_of: Type.Optional(DateInput('YYYY-MM-DD, not after the business today')),
            branch_id: Type.Optional(Uuid),
          },
          { additionalProperties: false },
        ),
        response: { 200: documented(Summary, 'The portfolio figures', ex.summary) },
      },
    },
    async (req) => {
      const bid = req.auth.businessId;
      const today = req.auth.today;
      const asOf = req.query.as_of ?? today;
      if (compareDates(asOf, today) > 0)
        throw invalid('/as_of', `is after the business's today (${today}): figures exist up to today`);
      return portfolioSummary(app.db, req.auth, {
        businessId: bid,
        asOf,
        branchId: req.query.branch_id ?? null,
        timezone: req.auth.timezone,
        today,
      });
    },
  );

  app.get(
    '/reports/collections',
    {
      schema: {
        operationId: 'collectionsReport',
        tags: ['reports'],
        summary:
          'Payments dated from..to (both included; default: this month to today) grouped by day, method, channel or branch, with what was reversed since',
        querystring: Type.Object(
          {
            from: Type.Optional(DateInput()),
            to: Type.Optional(DateInput()),
            group_by: Type.Optional(OneOf(['day', 'method', 'channel', 'branch'], { description: 'default day' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: documented(Collections, 'The payments grouped, and their totals', {
            from: '2026-03-01',
            to: '2026-03-20',
            group_by: 'method',
            rows: [
              { key: 'cash', payments: 2, amount: 90000, reversed_payments: 0, reversed_amount: 0 },
              { key: 'transfer', payments: 1, amount: 45000, reversed_payments: 1, reversed_amount: 45000 },
            ],
            totals: { payments: 3, amount: 135000, reversed_payments: 1, reversed_amount: 45000 },
          }),
        },
      },
    },
    async (req) => {
      const today = req.auth.today;
      const to = req.query.to ?? today;
      const from = req.query.from ?? `${to.slice(0, 8)}01`;
      if (compareDates(from, to) > 0) throw invalid('/from', 'is after to');
      return collectionsReport(app.db.kysely, {
        businessId: req.auth.businessId,
        from,
        to,
        groupBy: req.query.group_by ?? 'day',
      });
    },
  );

  app.get(
    '/reports/exports/:dataset.csv',
    {
      schema: {
        operationId: 'exportDataset',
        tags: ['reports'],
        summary:
          'A dataset as CSV (RFC 4180, header row first), streamed; from/to filter on created_at (changed_at for logs)',
        params: Type.Object({
          dataset: OneOf(DATASETS, { examples: ['credits'] }),
        }),
        querystring: Type.Object(
          { from: Type.Optional(BoundParam), to: Type.Optional(BoundParam) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Unsafe<unknown>({
            description: 'CSV (RFC 4180), columns in the order of the record in the contract',
            content: { 'text/csv': { schema: { type: 'string' }, example: ex.creditsCsv } },
          }),
        },
      },
    },
    async (req, reply) => {
      const { dataset } = req.params;
      if (!DATASETS.includes(dataset)) throw new AppError('not_found', `no dataset ${String(dataset)}`);
      const from = bound('from', req.query.from);
      const to = bound('to', req.query.to);
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${dataset}.csv"`)
        .header('cache-control', 'no-store');
      // HEAD: the headers only; running the export to throw it away would hold a connection
      if (req.method === 'HEAD') return reply.send();
      const chunks = exportCsv(app.db, dataset, {
        businessId: req.auth.businessId,
        hiddenTables: hiddenTablesFor(req.auth),
        timezone: req.auth.timezone,
        today: req.auth.today,
        actor: req.auth.actor,
        readAfter: req.auth.readAfter ?? null,
        ...(from ? { from } : {}),
        ...(to ? { to } : {}),
      });
      async function* text() {
        for await (const c of chunks) yield c.csv;
      }
      // byte mode: the stream buffers ~16 KiB before it stops pulling, so one batch is in memory
      return reply.send(Readable.from(text(), { objectMode: false }));
    },
  );
}
