// Payment imports (docs/payments.md, "Importing payments"): a CSV file sent as
// text/csv or as multipart field "file" is stored and answered 202; the lines are paid in the
// background (src/jobs/paymentImports.ts, and right after the answer in this process), and read
// back with their outcome.
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../types.ts';
import {
  Nullable,
  Page,
  UuidParam,
  PageQuery,
  PaymentImport,
  PaymentImportLine,
  documented,
  errors,
  ref,
} from '../../schemas.ts';
import { pageRequest } from '../../helpers.ts';
import { describeRequest, write } from '../../idempotency.ts';
import { AppError, invalid } from '../../../domain/errors.ts';
import { OneOf } from '../../../domain/records.ts';
import {
  IMPORT_COLUMNS,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_LINES,
  presentImport,
  presentImportLine,
  processImports,
  readImport,
  readImportLines,
  readImports,
  startImport,
} from '../../../services/paymentImports.ts';

const example = {
  id: '5b0f6c1e-8a8e-4c39-9a43-3f4d0f1f6a10',
  status: 'done' as const,
  lines: 3,
  accepted: 1,
  rejected: 1,
  duplicates: 1,
  created_by: 'api_key:9a1d3c4e-2b7f-4e51-8c0d-6f2a1b3c4d5e',
  created_at: '2026-03-20T13:02:00Z',
  finished_at: '2026-03-20T13:02:01Z',
};

const ImportsPage = Type.Object({
  ...Page(ref(PaymentImport)).properties,
  next_cursor: Nullable(
    Type.String({
      description:
        'pass as ?cursor= for the imports after this page (it carries the status: alone, or with the same status); null on the last page',
    }),
  ),
});

const ImportParams = Type.Object({ id: UuidParam('5b0f6c1e-8a8e-4c39-9a43-3f4d0f1f6a10') });

const CsvBody = {
  content: {
    'text/csv': {
      schema: Type.String({
        description: `header row, then one payment a line; columns ${IMPORT_COLUMNS.join(', ')}`,
        examples: [
          'credit,amount,paid_on,method,channel,external_reference\n1042,45000,2026-03-20,collection_network,Rapipago,RP-000981\n',
        ],
      }),
    },
    'multipart/form-data': {
      schema: Type.Unsafe({
        type: ['object', 'null'],
        properties: { file: { type: 'string', format: 'binary', description: 'the CSV file' } },
        examples: [{ file: '(the bytes of pagos.csv)' }],
      }),
    },
  },
  required: true,
};

/** The file's text: the body (text/csv) or the multipart field "file", at most MAX_IMPORT_BYTES. */
async function fileText(req: FastifyRequest): Promise<string> {
  if (typeof req.body === 'string') return req.body;
  if (!req.isMultipart())
    throw new AppError(
      'unsupported_media_type',
      'send the file as text/csv or as multipart/form-data in the field "file"',
    );
  const part = await req.file();
  if (!part) throw invalid('/file', 'send the file as multipart/form-data in the field "file"');
  if (part.fieldname !== 'file') {
    part.file.resume();
    throw invalid('/file', 'the file must be sent in the field "file"');
  }
  const bytes = await part.toBuffer();
  const text = bytes.toString('utf8');
  describeRequest(req, () => ({ file_name: part.filename ?? null, text }));
  return text;
}

export default async function paymentImportRoutes(app: App) {
  // pays what was imported, in this process, right away (the job does the same every second, for
  // every business); only the uploading business's imports: a process whose clock differs (tests)
  // never decides another business's lines
  const waiting = new Set<string>();
  let running: Promise<void> | null = null;
  const kick = (businessId: string) => {
    waiting.add(businessId);
    if (running) return;
    running = (async () => {
      for (const b of waiting) {
        waiting.delete(b);
        await processImports({ db: app.db, clock: app.clock, log: app.log }, { businessId: b }).catch((err) =>
          app.log.error({ err }, 'payment import run failed'),
        );
      }
    })().finally(() => {
      running = null;
    });
  };
  app.addHook('onClose', async () => {
    waiting.clear();
    await running;
  });

  await app.register(async (scope: App) => {
    await scope.register(multipart, {
      limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 5, parts: 6, headerPairs: 50 },
      throwFileSizeLimit: true,
    });
    scope.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: MAX_IMPORT_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    scope.post(
      '/payment-imports',
      {
        bodyLimit: MAX_IMPORT_BYTES,
        config: { role: 'employee' },
        schema: {
          operationId: 'createPaymentImport',
          tags: ['credits'],
          summary: 'Import payments from a CSV file (text/csv or multipart field "file"); paid in the background',
          description:
            `Header row, then one payment a line: ${IMPORT_COLUMNS.join(', ')} (credit: sequential id or uuid; paid_on ` +
            `default today; method default cash). At most ${MAX_IMPORT_LINES} lines and ${MAX_IMPORT_BYTES} bytes (413). ` +
            'Each line is paid as POST /api/credits/{id}/payments would pay it; a bad line is rejected alone, a ' +
            "channel's reference already paid is a duplicate. Answers 202 at once; read the import for its progress.",
          body: CsvBody,
          response: {
            202: documented(ref(PaymentImport), 'The import, running', {
              ...example,
              status: 'running',
              accepted: 0,
              rejected: 0,
              duplicates: 0,
              finished_at: null,
            }),
            ...errors(413, 415),
          },
        },
      },
      async (req, reply) => {
        const r = await write(
          req,
          reply,
          202,
          async (ctx) => startImport(app.db, ctx, await fileText(req)),
          presentImport,
        );
        kick(req.auth.businessId);
        return r;
      },
    );
  });

  app.get(
    '/payment-imports',
    {
      schema: {
        operationId: 'listPaymentImports',
        tags: ['credits'],
        summary: "The business's payment imports, newest first, with their status and counts; status narrows",
        description:
          'Pages by offset (total is exact) or by cursor: ?cursor=<next_cursor> continues after the previous page, ' +
          'with no import skipped or repeated while new ones arrive. The cursor carries the status of the page that ' +
          'gave it: send it alone, or with that same status (another status is 400). With a cursor, offset must be 0 (omitted); the ' +
          'response offset then counts the imports before the page.',
        querystring: Type.Object(
          {
            status: Type.Optional(PaymentImport.properties.status),
            ...PageQuery,
            cursor: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 1024,
                description:
                  'next_cursor of the previous page, as it came; it continues with its own status (status may be left out, or given the same)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: documented(ImportsPage, 'A page of imports, newest first, and the cursor of the next page', {
            items: [example],
            total: 12,
            limit: 1,
            offset: 0,
            next_cursor:
              'WyJpMiIsInFRc241WnZPaXBBSTJqeHciLCIyMDI2LTAzLTIwVDEzOjAyOjAwLjEyMzQ1NloiLCI1YjBmNmMxZS04YThlLTRjMzktOWE0My0zZjRkMGYxZjZhMTAiLDEsW251bGxdXQ',
          }),
        },
      },
    },
    async (req) => {
      const q = req.query;
      const page = await readImports(app.db, req.auth, {
        ...(q.status ? { status: q.status } : {}),
        ...pageRequest(q),
        ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
      });
      return { ...page, items: page.items.map(presentImport) };
    },
  );

  app.get(
    '/payment-imports/:id',
    {
      schema: {
        operationId: 'getPaymentImport',
        tags: ['credits'],
        summary: 'Read an import: its status and how many lines were accepted, rejected and duplicates so far',
        params: ImportParams,
        response: { 200: documented(ref(PaymentImport), 'The import', example) },
      },
    },
    async (req) => presentImport(await readImport(app.db, req.auth, req.params.id)),
  );

  app.get(
    '/payment-imports/:id/lines',
    {
      schema: {
        operationId: 'listPaymentImportLines',
        tags: ['credits'],
        summary: "An import's lines in file order with their outcome; status narrows",
        params: ImportParams,
        querystring: Type.Object(
          { status: Type.Optional(OneOf(['accepted', 'rejected', 'duplicate'])), ...PageQuery },
          { additionalProperties: false },
        ),
        response: {
          200: documented(Page(ref(PaymentImportLine)), 'A page of lines', {
            items: [
              {
                line: 3,
                credit: '1042',
                amount: 45000,
                status: 'rejected',
                code: 'conflict',
                message: 'payment refused: the credit is closed: nothing is owed',
                payment_id: null,
              },
            ],
            total: 1,
            limit: 50,
            offset: 0,
          }),
        },
      },
    },
    async (req) => {
      const at = pageRequest(req.query);
      const page = await readImportLines(app.db, req.auth, req.params.id, { status: req.query.status, ...at });
      return { items: page.items.map(presentImportLine), total: page.total, ...at };
    },
  );
}
