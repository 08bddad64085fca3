import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { AuditLogEntry, Page, PageQuery, Uuid, errors, ref } from '../../schemas.ts';
import { listAudit } from '../../../db/repositories/audit.ts';

const Action = Type.Union([Type.Literal('INSERT'), Type.Literal('UPDATE'), Type.Literal('DELETE')]);
const TableName = Type.String({ minLength: 1, maxLength: 63, description: 'clients, credits, installments, ledger, credit_configs, branches, client_files, upload_sessions' });

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
            action: Type.Optional(Action),
            record_id: Type.Optional(Uuid),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(ref(AuditLogEntry)), ...errors(400, 401) },
      },
    },
    async (req) => {
      const q = req.query;
      const limit = q.limit ?? 50;
      const offset = q.offset ?? 0;
      const page = await listAudit(app.db.kysely, req.auth.businessId, {
        tableName: q.table_name ?? q.table,
        action: q.action,
        recordId: q.record_id,
        limit,
        offset,
      });
      return { ...page, limit, offset };
    },
  );
}
