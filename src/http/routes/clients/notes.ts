// Contact notes on a client (docs/collections.md).
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import {
  Note,
  NoteChannel,
  Nullable,
  Page,
  PageQuery,
  Uuid,
  documented,
  errors,
  example,
  idParams,
  ref,
} from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { addNote, listNotes } from '../../../services/collections.ts';
import { write } from '../../idempotency.ts';
import { pageRequest } from '../../helpers.ts';

const IdParams = idParams(ex.ids.client);

const NoteBody = example(
  Type.Object(
    {
      channel: NoteChannel,
      outcome: Type.String({ minLength: 1, maxLength: 2000, description: 'what came of the contact' }),
      credit_id: Type.Optional(Nullable(Uuid)),
    },
    { additionalProperties: false },
  ),
  ex.noteInput,
);

const ListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

export default async function clientNoteRoutes(app: App) {
  app.post(
    '/clients/:id/notes',
    {
      config: { role: 'employee' },
      schema: {
        operationId: 'createNote',
        tags: ['collections'],
        summary: 'Record a contact with the client (a call, a visit, a message) and its outcome',
        description: 'credit_id, when given, is one of the client’s credits (422 otherwise).',
        params: IdParams,
        body: NoteBody,
        response: {
          201: documented(ref(Note), 'The note', ex.note),
          ...errors(422),
        },
      },
    },
    async (req, reply) =>
      write(req, reply, 201, (ctx) =>
        addNote(app.db, ctx, req.params.id, {
          channel: req.body.channel,
          outcome: req.body.outcome,
          credit_id: req.body.credit_id ?? null,
        }),
      ),
  );

  app.get(
    '/clients/:id/notes',
    {
      schema: {
        operationId: 'listNotes',
        tags: ['collections'],
        summary: "The client's contact notes, newest first",
        params: IdParams,
        querystring: ListQuery,
        response: { 200: documented(Page(ref(Note)), 'A page of notes, newest first', ex.page([ex.note])) },
      },
    },
    async (req) => {
      const at = pageRequest(req.query);
      return { ...(await listNotes(app.db, req.auth, req.params.id, at)), ...at };
    },
  );
}
