// Business settings (docs/applications.md "Settings"): read by anyone of the business, changed by
// admins (and full keys).
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { Settings, documented, example, ref } from '../../schemas.ts';
import { readSettings, updateSettings } from '../../../services/settings.ts';

const settingsExample = {
  approval: { required: true, employee_limit: 500000 },
  reminders: { enabled: true, before_due_days: [3], overdue_days: [1, 7] },
  locale: 'es-AR' as const,
  timezone: 'America/Argentina/Buenos_Aires',
};

const P = Settings.properties;
// the record as GET shows it, whole or in part: what is left out (a section, or a field of one)
// keeps its saved value, as every other PUT of the API does
const UpdateBody = example(
  Type.Object(
    {
      approval: Type.Optional(Type.Partial(Type.Object(P.approval.properties), { additionalProperties: false })),
      reminders: Type.Optional(Type.Partial(Type.Object(P.reminders.properties), { additionalProperties: false })),
      locale: Type.Optional(P.locale),
      timezone: Type.Optional(P.timezone),
    },
    { additionalProperties: false },
  ),
  settingsExample,
);

export default async function settingsRoutes(app: App) {
  app.get(
    '/settings',
    {
      schema: {
        operationId: 'getSettings',
        tags: ['settings'],
        summary: "The business's settings: approval of credits, payment reminders, locale and time zone",
        response: {
          200: documented(ref(Settings), 'The settings (the defaults until an admin saves them)', settingsExample),
        },
      },
    },
    async (req) => readSettings(app.db, req.auth),
  );

  app.put(
    '/settings',
    {
      schema: {
        operationId: 'updateSettings',
        tags: ['settings'],
        summary: 'Change the settings (admins): the whole record as GET shows it, or only the parts to change',
        description:
          'A section or field left out keeps its saved value (an empty body changes nothing). Day offsets are 0..365, at most 10 each, without repeats (stored in order); locale es-AR or en; timezone an IANA ' +
          "zone, which becomes the business's time zone (its today).",
        body: UpdateBody,
        response: { 200: documented(ref(Settings), 'The settings as saved', settingsExample) },
      },
    },
    async (req) => updateSettings(app.db, req.auth, req.body),
  );
}
