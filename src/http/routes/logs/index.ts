import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { AuditLogEntry, Page, PageQuery, Uuid, ref } from '../../schemas.ts';
import { pageRequest } from '../../helpers.ts';
import { listAudit } from '../../../services/audit.ts';

const TableName = Type.String({
  minLength: 1,
  maxLength: 63,
  description: 'clients, credits, installments, ledger, credit_configs, branches, client_files, upload_sessions',
});

export default async function logRoutes(app: App) {
  app.get(
    '/logs',
    {
      schema: {
        tags: ['audit'],
        summary: 'The audit log, newest first (contract 7)',
        querystring: Type.Object(
          {
            table_name: Type.Optional(TableName),
            table: Type.Optional(TableName),
            action: Type.Optional(AuditLogEntry.properties.action),
            record_id: Type.Optional(Uuid),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(ref(AuditLogEntry)) },
      },
    },
    async (req) => {
      const q = req.query;
      // table is the short alias of table_name
      return listAudit(app.db, req.auth, {
        tableName: q.table_name ?? q.table,
        action: q.action,
        recordId: q.record_id,
        ...pageRequest(q),
      });
    },
  );
}
