import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { Branch, Nullable, ReadOnlyFields, documented, errors, example, idParams, ref } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { sendJsonText, writable } from '../../helpers.ts';
import { write } from '../../idempotency.ts';
import { createBranch, deleteBranch, editBranch, listBranches } from '../../../services/branches.ts';

// The record's writable fields (src/domain/records.ts); address and phone may be sent as null
// (unknown, answered as ""). Read-only fields sent back, deleted_at too, are accepted and ignored.
const { name: Name, address, phone } = Branch.properties;
const Fields = {
  address: Type.Optional(Nullable(address)),
  phone: Type.Optional(Nullable(phone)),
  deleted_at: Type.Optional(Type.Unknown()),
};
const CreateBody = example(
  Type.Object({ name: Name, ...Fields, ...ReadOnlyFields }, { additionalProperties: false }),
  ex.branchInput,
);
const UpdateBody = example(
  Type.Object({ name: Type.Optional(Name), ...Fields, ...ReadOnlyFields }, { additionalProperties: false }),
  { phone: '+54 11 4555-0101' },
);
const IdParams = idParams(ex.ids.branch);

/** The service's input: the body without what is ignored. */
const input = <T extends { deleted_at?: unknown }>(body: T) => {
  const { deleted_at: _ignored, ...fields } = writable(body);
  return fields;
};

export default async function branchRoutes(app: App) {
  app.get(
    '/branches',
    {
      schema: {
        operationId: 'listBranches',
        tags: ['branches'],
        'x-contract': 8,
        summary: 'List the branches, deleted ones included with deleted_at',
        response: {
          200: documented(Type.Array(ref(Branch)), 'Every branch of the business, deleted ones included', [ex.branch]),
        },
      },
    },
    async (req, reply) => sendJsonText(reply, await listBranches(app.db, req.auth)),
  );

  app.post(
    '/branches',
    {
      schema: {
        operationId: 'createBranch',
        tags: ['branches'],
        summary: 'Create a branch',
        body: CreateBody,
        response: { 201: documented(ref(Branch), 'The branch created', ex.branch) },
      },
    },
    async (req, reply) => write(req, reply, 201, (ctx) => createBranch(app.db, ctx, input(req.body))),
  );

  app.put(
    '/branches/:id',
    {
      schema: {
        operationId: 'updateBranch',
        tags: ['branches'],
        summary: 'Edit a branch (partial update); a deleted branch cannot be edited',
        params: IdParams,
        body: UpdateBody,
        response: {
          200: documented(ref(Branch), 'The branch as it is now', {
            ...ex.branch,
            phone: '+54 11 4555-0101',
            updated_at: '2026-03-20T15:45:00.000Z',
          }),
          ...errors(409),
        },
      },
    },
    async (req) => editBranch(app.db, req.auth, req.params.id, input(req.body ?? {})),
  );

  app.delete(
    '/branches/:id',
    {
      schema: {
        operationId: 'deleteBranch',
        tags: ['branches'],
        summary: 'Soft-delete a branch: it stays in the list with deleted_at and takes no new credits or payments',
        params: IdParams,
        response: {
          200: documented(ref(Branch), 'The branch, with deleted_at set', {
            ...ex.branch,
            updated_at: '2026-09-30T18:00:00.000Z',
            deleted_at: '2026-09-30T18:00:00.000Z',
          }),
        },
      },
    },
    async (req) => deleteBranch(app.db, req.auth, req.params.id),
  );
}
