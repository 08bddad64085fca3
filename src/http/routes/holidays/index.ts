// A business's holidays (docs/api.md, "Holidays"): listed by date, added (one a date), deleted by date.
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { DATE_FORMAT, DateInput, Holiday, ReadOnlyFields, documented, errors, example, ref } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { writable } from '../../helpers.ts';
import { write } from '../../idempotency.ts';
import { createHoliday, deleteHoliday, listHolidays } from '../../../services/holidays.ts';

// the record's writable fields; created_at sent back (a holiday read with GET) is ignored
const CreateBody = example(
  Type.Object({ date: DateInput(), name: Holiday.properties.name, ...ReadOnlyFields }, { additionalProperties: false }),
  ex.holidayInput,
);

// a path date that is not a calendar date names no holiday: 404, like a malformed id
const DateParams = Type.Object({
  date: Type.String({ format: DATE_FORMAT, description: 'YYYY-MM-DD', examples: [ex.holiday.date] }),
});

export default async function holidayRoutes(app: App) {
  app.get(
    '/holidays',
    {
      schema: {
        operationId: 'listHolidays',
        tags: ['holidays'],
        summary: "List the business's holidays by date; from and to (both included) narrow the list",
        querystring: Type.Object(
          {
            from: Type.Optional(DateInput('YYYY-MM-DD: holidays on or after it')),
            to: Type.Optional(DateInput('YYYY-MM-DD: holidays on or before it')),
          },
          { additionalProperties: false },
        ),
        response: { 200: documented(Type.Array(ref(Holiday)), 'The holidays, by date', ex.holidays) },
      },
    },
    async (req) => listHolidays(app.db, req.auth, { from: req.query.from, to: req.query.to }),
  );

  app.post(
    '/holidays',
    {
      schema: {
        operationId: 'createHoliday',
        tags: ['holidays'],
        summary: 'Add a holiday: the date is no longer a business day (409 when it is a holiday already)',
        body: CreateBody,
        response: {
          201: documented(ref(Holiday), 'The holiday added', ex.holiday),
          ...errors(409),
        },
      },
    },
    async (req, reply) => {
      const { date, name } = writable(req.body);
      return write(req, reply, 201, (ctx) => createHoliday(app.db, ctx, { date, name }));
    },
  );

  app.delete(
    '/holidays/:date',
    {
      schema: {
        operationId: 'deleteHoliday',
        tags: ['holidays'],
        summary: 'Delete the holiday of a date: it is a business day again unless a Saturday or Sunday',
        params: DateParams,
        response: { 200: documented(ref(Holiday), 'The holiday deleted', ex.holiday) },
      },
    },
    async (req) => deleteHoliday(app.db, req.auth, req.params.date),
  );
}
