// The change feed (docs/events.md, "Reading the feed"): a business's events after a sequence, oldest
// first. Sequences commit in order (migration 012), so polling with after=next_after never misses one.
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { Event, documented, ref } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { EVENT_TYPES, listEvents } from '../../../services/events.ts';
import { invalid } from '../../../domain/errors.ts';

const KNOWN = new Set<string>(EVENT_TYPES);

const FeedPage = Type.Object({
  items: Type.Array(ref(Event)),
  next_after: Type.Integer({
    description: "the last item's sequence (after, when the page is empty): the next poll's after",
  }),
});

export default async function eventRoutes(app: App) {
  app.get(
    '/events',
    {
      schema: {
        operationId: 'listEvents',
        tags: ['events'],
        summary: "The business's events after a sequence, oldest first",
        description:
          'Poll with after=<next_after of the previous page> (0 or omitted: from the first event). An event is visible only once its transaction has committed, and sequences commit in order: a poller never misses an event and never sees one twice.',
        querystring: Type.Object(
          {
            after: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: Number.MAX_SAFE_INTEGER,
                default: 0,
                description: 'the sequence already processed: events after it',
              }),
            ),
            types: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 1000,
                description: `comma-separated event types to include (all when omitted): ${EVENT_TYPES.join(', ')}`,
              }),
            ),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: documented(FeedPage, 'Events after `after`, oldest first', ex.events as never) },
      },
    },
    async (req) => {
      const types = req.query.types
        ?.split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');
      if (types?.length === 0) throw invalid('/types', 'name at least one event type (or leave types out for all)');
      const unknown = types?.find((t) => !KNOWN.has(t));
      if (unknown !== undefined)
        throw invalid('/types', `unknown event type ${unknown}: one of ${EVENT_TYPES.join(', ')}`);
      return listEvents(app.db, req.auth, { after: req.query.after ?? 0, types, limit: req.query.limit ?? 50 });
    },
  );
}
