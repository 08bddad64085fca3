// A credit's loan contract and promissory note, as the PDFs the client signs (src/http/pdf/contract.ts
// from services/creditDocuments.ts). docs/api.md, "Contract and promissory note". PDF only: the
// Accept header is not read, as on every route that answers one type.
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { UuidParam } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { creditDocuments } from '../../../services/creditDocuments.ts';
import { renderContractPdf, renderPromissoryNotePdf } from '../../pdf/contract.ts';
import { fileName } from '../../pdf/format.ts';

/** The 200 answer: a PDF. */
const pdf = (description: string) => ({
  description,
  content: {
    'application/pdf': { schema: { type: 'string', format: 'binary', description }, example: '%PDF-1.3 …' },
  },
});

function sendPdf(reply: FastifyReply, body: Buffer, name: string) {
  return reply
    .type('application/pdf')
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('content-length', String(body.length))
    .send(body);
}

export default async function documentRoutes(app: App) {
  // a client's personal data: no shared cache keeps it
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'private, no-store');
  });

  app.get(
    '/credits/:id/documents/contract',
    {
      schema: {
        operationId: 'getCreditContract',
        tags: ['credits'],
        summary:
          "The credit's loan contract as a PDF (Spanish): parties, amount and cash handed over, the schedule with each installment's parts, fees, TNA, TEA and the CFT with and without VAT",
        description:
          'A4, Content-Disposition: attachment (contrato-credito-<number>.pdf). The CFT is printed larger and in bold, as the transparency rules ask. The figures are those of GET /api/credits/{id} as granted.',
        params: Type.Object({ id: UuidParam(ex.ids.credit) }),
        response: { 200: pdf('the loan contract (A4, Spanish)') },
      },
    },
    async (req, reply) => {
      const doc = await creditDocuments(app.db.kysely, req.auth, req.params.id);
      const body = await renderContractPdf(doc, { now: req.auth.now });
      return sendPdf(reply, body, fileName('contrato-credito', doc.credit.sequential_id));
    },
  );

  app.get(
    '/credits/:id/documents/promissory-note',
    {
      schema: {
        operationId: 'getCreditPromissoryNote',
        tags: ['credits'],
        summary:
          "The credit's promissory note (pagaré) as a PDF (Spanish): a sight note without protest for the total to repay, in figures and in words",
        description:
          "A4, Content-Disposition: attachment (pagare-credito-<number>.pdf). Signed by the borrower (and co-borrowers), guarantors 'por aval'.",
        params: Type.Object({ id: UuidParam(ex.ids.credit) }),
        response: { 200: pdf('the promissory note (A4, Spanish)') },
      },
    },
    async (req, reply) => {
      const doc = await creditDocuments(app.db.kysely, req.auth, req.params.id);
      const body = await renderPromissoryNotePdf(doc, { now: req.auth.now });
      return sendPdf(reply, body, fileName('pagare-credito', doc.credit.sequential_id));
    },
  );
}
