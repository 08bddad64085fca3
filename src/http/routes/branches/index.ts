import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { conflict, notFound } from '../../../domain/errors.ts';
import { Branch, IdParams, Nullable, ReadOnlyFields, errors, ref } from '../../schemas.ts';
import { cleanText, writable } from '../../helpers.ts';
import { presentBranch } from '../../../services/present.ts';
import { withActor } from '../../../db/connection.ts';
import { getBranch, insertBranch, listBranches, softDeleteBranch, updateBranch } from '../../../db/repositories/branches.ts';

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Text = Nullable(Type.String({ maxLength: 200 }));
const Fields = { address: Type.Optional(Text), phone: Type.Optional(Text), deleted_at: Type.Optional(Type.Unknown()) };
const CreateBody = Type.Object({ name: Name, ...Fields, ...ReadOnlyFields }, { additionalProperties: false });
const UpdateBody = Type.Object({ name: Type.Optional(Name), ...Fields, ...ReadOnlyFields }, { additionalProperties: false });

export default async function branchRoutes(app: App) {
  app.get(
    '/branches',
    {
      schema: {
        tags: ['branches'],
        summary: 'List the branches, deleted ones included with deleted_at (contract 8)',
        response: { 200: Type.Array(ref(Branch)), ...errors(401) },
      },
    },
    async (req) => (await listBranches(app.db.kysely, req.auth.businessId)).map(presentBranch),
  );

  app.post(
    '/branches',
    { schema: { tags: ['branches'], summary: 'Create a branch', body: CreateBody, response: { 201: ref(Branch), ...errors(400, 401, 403) } } },
    async (req, reply) => {
      const { deleted_at: _ignored, ...input } = cleanText(writable(req.body));
      const branch = await withActor(app.db.kysely, req.auth.actor, (trx) =>
        insertBranch(trx, req.auth.businessId, { ...input, name: req.body.name.trim() }),
      );
      return reply.status(201).send(presentBranch(branch));
    },
  );

  app.put(
    '/branches/:id',
    {
      schema: {
        tags: ['branches'],
        summary: 'Edit a branch (partial update); a deleted branch cannot be edited',
        params: IdParams,
        body: UpdateBody,
        response: { 200: ref(Branch), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => {
      const { deleted_at: _ignored, ...patch } = cleanText(writable(req.body ?? {}));
      if (req.body?.name !== undefined) patch.name = req.body.name.trim();
      return withActor(app.db.kysely, req.auth.actor, async (trx) => {
        const current = await getBranch(trx, req.auth.businessId, req.params.id);
        if (!current) throw notFound('branch');
        if (Object.keys(patch).length === 0) return presentBranch(current);
        if (current.deleted_at) throw conflict('the branch is deleted');
        return presentBranch((await updateBranch(trx, req.auth.businessId, current.id, patch))!);
      });
    },
  );

  app.delete(
    '/branches/:id',
    {
      schema: {
        tags: ['branches'],
        summary: 'Soft-delete a branch: it stays in the list with deleted_at and takes no new credits or payments',
        params: IdParams,
        response: { 200: ref(Branch), ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      const branch = await withActor(app.db.kysely, req.auth.actor, (trx) => softDeleteBranch(trx, req.auth.businessId, req.params.id));
      if (!branch) throw notFound('branch');
      return presentBranch(branch);
    },
  );
}
