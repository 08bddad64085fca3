import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { Branch, IdParams, Nullable, ReadOnlyFields, errors, ref } from '../../schemas.ts';
import { sendJsonText, writable } from '../../helpers.ts';
import { createBranch, deleteBranch, editBranch, listBranches } from '../../../services/branches.ts';

// The record's writable fields (src/domain/records.ts); address and phone may be sent as null
// (unknown, answered as ""). Read-only fields sent back, deleted_at too, are accepted and ignored.
const { name: Name, address, phone } = Branch.properties;
const Fields = {
  address: Type.Optional(Nullable(address)),
  phone: Type.Optional(Nullable(phone)),
  deleted_at: Type.Optional(Type.Unknown()),
};
const CreateBody = Type.Object({ name: Name, ...Fields, ...ReadOnlyFields }, { additionalProperties: false });
const UpdateBody = Type.Object(
  { name: Type.Optional(Name), ...Fields, ...ReadOnlyFields },
  { additionalProperties: false },
);

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
        tags: ['branches'],
        summary: 'List the branches, deleted ones included with deleted_at (contract 8)',
        response: { 200: Type.Array(ref(Branch)) },
      },
    },
    async (req, reply) => sendJsonText(reply, await listBranches(app.db, req.auth)),
  );

  app.post(
    '/branches',
    {
      schema: {
        tags: ['branches'],
        summary: 'Create a branch',
        body: CreateBody,
        response: { 201: ref(Branch) },
      },
    },
    async (req, reply) => reply.status(201).send(await createBranch(app.db, req.auth, input(req.body))),
  );

  app.put(
    '/branches/:id',
    {
      schema: {
        tags: ['branches'],
        summary: 'Edit a branch (partial update); a deleted branch cannot be edited',
        params: IdParams,
        body: UpdateBody,
        response: { 200: ref(Branch), ...errors(409) },
      },
    },
    async (req) => editBranch(app.db, req.auth, req.params.id, input(req.body ?? {})),
  );

  app.delete(
    '/branches/:id',
    {
      schema: {
        tags: ['branches'],
        summary: 'Soft-delete a branch: it stays in the list with deleted_at and takes no new credits or payments',
        params: IdParams,
        response: { 200: ref(Branch) },
      },
    },
    async (req) => deleteBranch(app.db, req.auth, req.params.id),
  );
}
