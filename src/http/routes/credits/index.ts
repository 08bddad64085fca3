import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { notFound } from '../../errors.ts';
import { IdParams, LedgerEntry, errors, ref } from '../../schemas.ts';
import { getCredit, ledgerOfCredits } from '../../../db/repositories/book.ts';
import { presentLedgerEntry } from '../../present.ts';

export default async function creditRoutes(app: App) {
  app.get(
    '/credits/:id/ledger',
    {
      schema: {
        tags: ['credits'],
        summary: "The ledger entries of all the credit's installments, oldest first (contract 3)",
        params: IdParams,
        response: { 200: Type.Array(ref(LedgerEntry)), ...errors(401, 404) },
      },
    },
    async (req) => {
      const credit = await getCredit(app.db.kysely, req.auth.businessId, req.params.id);
      if (!credit) throw notFound('credit');
      return (await ledgerOfCredits(app.db.kysely, req.auth.businessId, [credit.id])).map(presentLedgerEntry);
    },
  );
}
