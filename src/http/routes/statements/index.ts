// A credit's statement and a payment's receipt, as JSON (the API's records) or, with
// `Accept: application/pdf`, as the PDF a client takes home (src/http/pdf/). docs/api.md,
// "Statement and receipt", says how the answer is chosen.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { AppError } from '../../../domain/errors.ts';
import { Receipt, Statement, UuidParam, errors, ref } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { creditStatement, paymentReceipt } from '../../../services/statements.ts';
import { negotiate } from '../../negotiation.ts';
import { renderReceipt80mmPdf, renderReceiptPdf, renderStatementPdf } from '../../pdf/documents.ts';
import { fileName } from '../../pdf/format.ts';

const OFFERED = ['application/json', 'application/pdf'] as const;

/** The 200 answer in both representations, for the OpenAPI document (and the serializer, by content type). */
function either(description: string, schema: typeof Statement | typeof Receipt, example: unknown, pdf: string) {
  return {
    description,
    content: {
      'application/json': { schema: ref(schema), example },
      'application/pdf': {
        schema: { type: 'string', format: 'binary', description: pdf },
        example: '%PDF-1.3 …',
      },
    },
  };
}

/** JSON, or PDF when the Accept header prefers it; 406 when it accepts neither. */
function representation(req: FastifyRequest): 'application/json' | 'application/pdf' {
  const type = negotiate(req.headers.accept, OFFERED);
  if (!type)
    throw new AppError(
      'not_acceptable',
      'this resource is available as application/json or application/pdf; the Accept header allows neither',
    );
  return type;
}

function sendPdf(reply: FastifyReply, pdf: Buffer, name: string) {
  return reply
    .type('application/pdf')
    .header('content-disposition', `inline; filename="${name}"`)
    .header('content-length', String(pdf.length))
    .send(pdf);
}

export default async function statementRoutes(app: App) {
  // the answer depends on Accept, and holds a client's personal data: no shared cache keeps it
  app.addHook('onSend', async (_req, reply) => {
    reply.header('vary', 'Accept').header('cache-control', 'private, no-store');
  });

  app.get(
    '/credits/:id/statement',
    {
      schema: {
        operationId: 'getCreditStatement',
        tags: ['credits'],
        summary:
          "The credit's statement as of today: client, schedule with each installment's parts and status, payments, and what is owed (JSON, or PDF with Accept: application/pdf)",
        description:
          'Accept: application/pdf answers the printable statement (Spanish, amounts as $ 1.234,56, Content-Disposition: inline); ' +
          'no Accept or one that allows JSON answers JSON; an Accept that allows neither is 406. The figures are those of GET /api/credits/{id}.',
        params: Type.Object({ id: UuidParam(ex.ids.credit) }),
        response: {
          200: either(
            'The statement',
            Statement,
            ex.statement,
            'the statement as a PDF (A4, Spanish): business, client, credit, schedule, payments and balance',
          ),
          ...errors(406),
        },
      },
    },
    async (req, reply) => {
      const type = representation(req);
      const doc = await creditStatement(app.db.kysely, req.auth, req.params.id);
      if (type === 'application/json') return reply.type('application/json; charset=utf-8').send(doc);
      const pdf = await renderStatementPdf(doc, { timezone: req.auth.timezone, now: req.auth.now });
      return sendPdf(reply, pdf, fileName('estado-de-cuenta-credito', doc.credit.sequential_id, doc.as_of));
    },
  );

  app.get(
    '/credits/:id/payments/:paymentId/receipt',
    {
      schema: {
        operationId: 'getPaymentReceipt',
        tags: ['credits'],
        summary:
          "A payment's receipt: its amount and date, how it was applied to the installments, and the credit's balance after it (JSON, or PDF with Accept: application/pdf)",
        description:
          'Negotiated like the statement. A payment of another credit (or business) is 404. A reversed payment is marked (reversed_at; ANULADO on the PDF).',
        params: Type.Object({ id: UuidParam(ex.ids.credit), paymentId: UuidParam(ex.ids.payment) }),
        querystring: Type.Object({
          paper: Type.Optional(
            Type.Union([Type.Literal('a4'), Type.Literal('80mm')], {
              default: 'a4',
              description:
                "the PDF's paper: a4 (the default), or 80mm for a counter's roll printer (80 mm wide, 72 mm printed, as tall as the receipt); the JSON answer ignores it",
            }),
          ),
        }),
        response: {
          200: either(
            'The receipt',
            Receipt,
            ex.receipt,
            'the receipt as a PDF (A4, or 80 mm roll paper with paper=80mm; Spanish): the payment, its application and the balance after it',
          ),
          ...errors(406),
        },
      },
    },
    async (req, reply) => {
      const type = representation(req);
      const doc = await paymentReceipt(app.db.kysely, req.auth, req.params.id, req.params.paymentId);
      if (type === 'application/json') return reply.type('application/json; charset=utf-8').send(doc);
      const roll = req.query.paper === '80mm';
      const render = roll ? renderReceipt80mmPdf : renderReceiptPdf;
      const pdf = await render(doc, { timezone: req.auth.timezone, now: req.auth.now });
      return sendPdf(
        reply,
        pdf,
        fileName(
          roll ? 'recibo-80mm-credito' : 'recibo-credito',
          doc.credit.sequential_id,
          doc.payment.paid_on,
          doc.payment.id.slice(0, 8),
        ),
      );
    },
  );
}
