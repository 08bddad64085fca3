import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { AuditLogEntry, Nullable, Page, PageQuery, Uuid, documented, ref } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { pageRequest } from '../../helpers.ts';
import { hiddenTablesFor, listAudit } from '../../../services/audit.ts';
import { auditPageJson } from '../../../services/present.ts';

const TableName = Type.String({
  minLength: 1,
  maxLength: 63,
  description:
    'clients, credits, installments, ledger, payments, credit_configs, branches, client_files, upload_sessions, holidays, users, api_keys, impersonations, webhook_endpoints, verifications, leads (users, api_keys and impersonations for admins and full keys only)',
});

const AuditPage = Type.Object({
  ...Page(ref(AuditLogEntry)).properties,
  next_cursor: Nullable(
    Type.String({
      description:
        'pass as ?cursor= for the entries after this page (it carries the filters: alone, or with the same filters); null on the last page',
    }),
  ),
});

export default async function logRoutes(app: App) {
  app.get(
    '/logs',
    {
      schema: {
        operationId: 'listAuditLog',
        tags: ['audit'],
        'x-contract': 7,
        summary: 'The audit log, newest first',
        description:
          'The entries of users, api_keys and impersonations are shown only to admins and full keys: for any other reader they are left out of the items and the total alike. Pages by offset (total is exact) or by cursor: ?cursor=<next_cursor> continues after the previous page at the same cost at any depth, with no entry skipped or repeated while entries are written. The cursor carries the filters of the page that gave it: send it alone, or with those same filters (other filters are 400). With a cursor, offset must be 0 (omitted); the response offset then counts the entries before the page.',
        querystring: Type.Object(
          {
            table_name: Type.Optional(TableName),
            table: Type.Optional(TableName),
            action: Type.Optional(AuditLogEntry.properties.action),
            record_id: Type.Optional(Uuid),
            ...PageQuery,
            cursor: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 1024,
                description:
                  'next_cursor of the previous page, as it came; it continues with its own filters (table_name, action and record_id may be left out, or given the same)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: documented(AuditPage, 'A page of audit entries, newest first, and the cursor of the next page', {
            ...ex.page([ex.auditEntry], 214, 1),
            next_cursor:
              'WyJhMiIsIk5kaWUtckZLWThjMGxKbngiLCIyMDI2LTAxLTE1VDEzOjAyOjAyLjExNDAwMFoiLCIzZjFkMmM0Yi01YTZlLTRmNzAtOGE5Yi0wYzFkMmUzZjRhNWIiLDEsW251bGwsbnVsbCxudWxsXV0',
          }),
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      // table is the short alias of table_name
      const page = await listAudit(
        app.db,
        req.auth,
        {
          tableName: q.table_name ?? q.table,
          action: q.action,
          recordId: q.record_id,
          cursor: q.cursor,
          ...pageRequest(q),
        },
        hiddenTablesFor(req.auth),
      );
      // the body is written already (a string is sent as it is): the schema above documents it
      return reply.type('application/json; charset=utf-8').send(auditPageJson(page) as never);
    },
  );
}
