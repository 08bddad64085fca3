// The business's e-mails and what became of each (docs/notifications.md).
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { Notification, NotificationStatus, Page, PageQuery, Uuid, documented, ref } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { pageRequest } from '../../helpers.ts';
import { listNotifications } from '../../../services/notifications.ts';

export default async function notificationRoutes(app: App) {
  app.get(
    '/notifications',
    {
      schema: {
        operationId: 'listNotifications',
        tags: ['notifications'],
        summary:
          'List the e-mails sent or queued (newest first): payment reminders to clients and, for admins and full keys, set-password links to users',
        querystring: Type.Object(
          {
            client_id: Type.Optional({ ...Uuid, examples: [ex.notificationsClient] }),
            status: Type.Optional(NotificationStatus),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: {
          200: documented(Page(ref(Notification)), 'A page of notifications', ex.page([ex.notification])),
        },
      },
    },
    async (req) =>
      listNotifications(app.db, req.auth, {
        ...(req.query.client_id ? { client_id: req.query.client_id } : {}),
        ...(req.query.status ? { status: req.query.status } : {}),
        ...pageRequest(req.query),
      }),
  );
}
