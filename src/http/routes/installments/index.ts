import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { Page, PageQuery, Uuid, WorklistItem, documented } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { collectionsWorklist } from '../../../services/credits.ts';

const Query = Type.Object(
  {
    overdue: Type.Optional(
      Type.Boolean({
        description: 'true: only overdue installments (unpaid, due before today); false: only the others',
      }),
    ),
    branch_id: Type.Optional(Uuid),
    credit_id: Type.Optional(Uuid),
    min_days_late: Type.Optional(Type.Integer({ minimum: 0, maximum: 36_500 })),
    ...PageQuery,
  },
  { additionalProperties: false },
);

export default async function installmentRoutes(app: App) {
  app.get(
    '/installments',
    {
      schema: {
        operationId: 'listInstallments',
        tags: ['credits'],
        summary: 'The collections worklist: installments, most days late first, each with its client and credit number',
        description:
          'Delinquency is computed for the business’s today. Installments of cancelled (inactive) credits are left out; written-off credits stay (recoveries).',
        querystring: Query,
        response: {
          200: documented(
            Page(WorklistItem),
            'A page of installments, each with its client and credit number',
            ex.page([ex.worklistItem]),
          ),
        },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 50;
      const offset = req.query.offset ?? 0;
      const page = await collectionsWorklist(app.db, req.auth, {
        overdue: req.query.overdue,
        branchId: req.query.branch_id,
        creditId: req.query.credit_id,
        minDaysLate: req.query.min_days_late,
        limit,
        offset,
      });
      return { ...page, limit, offset };
    },
  );
}
