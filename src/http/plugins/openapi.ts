// The OpenAPI 3.1 document, built from the route schemas registered after this plugin, and its
// browsable view at /docs (GET /openapi.json serves the document: routes/ops.ts).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { readFileSync } from 'node:fs';
import { declareResponseHeaders, webhooksSection, type OpenApiDocument } from '../documentHeaders.ts';
import type { App } from '../types.ts';

/** The API's version is the package's (CHANGELOG.md has a section for each; docs/versioning.md). */
export const API_VERSION: string = JSON.parse(
  readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
).version;

type Documented = { $ref?: string; description?: string; examples?: unknown[] };

/**
 * The document shows a response's examples on its media type. @fastify/swagger moves them there
 * from an inline schema but drops them beside a $ref (a shared record, the Error body), so such a
 * response is written in the content form here, for the document only: the serializer keeps the
 * route's own schema.
 */
function withRefExamples<S extends { response?: unknown }>(schema: S): S {
  const response = schema.response as Record<string, Documented> | undefined;
  if (!response) return schema;
  const out: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(response)) {
    const { $ref, description, examples, ...rest } = r;
    out[status] =
      $ref && examples?.length && Object.keys(rest).length === 0
        ? {
            description,
            content: {
              'application/json': {
                schema: { $ref },
                ...(examples.length === 1 ? { example: examples[0] } : { examples: named(examples) }),
              },
            },
          }
        : r;
  }
  return { ...schema, response: out };
}

const named = (examples: unknown[]) => Object.fromEntries(examples.map((value, i) => [`example${i + 1}`, { value }]));

const ERROR_NAMES: Record<string, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  406: 'NotAcceptable',
  408: 'RequestTimeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Unprocessable',
  429: 'TooManyRequests',
  431: 'HeadersTooLarge',
  500: 'InternalError',
  503: 'Unavailable',
};

/**
 * The error answers most operations share (the same description and example) are written once
 * under components.responses and referenced: the document and the generated client stay a third
 * of the size. An operation's own variant (the public routes' 429) stays inline.
 */
function sharedErrorResponses(doc: OpenApiDocument): OpenApiDocument {
  const variants = new Map<string, Map<string, number>>();
  const each = (f: (status: string, text: string, responses: Record<string, unknown>) => void) => {
    for (const item of Object.values(doc.paths ?? {}))
      for (const op of Object.values(item))
        for (const [status, r] of Object.entries(op.responses ?? {}))
          if (ERROR_NAMES[status]) f(status, JSON.stringify(r), op.responses as Record<string, unknown>);
  };
  each((status, text) => {
    const counts = variants.get(status) ?? new Map<string, number>();
    counts.set(text, (counts.get(text) ?? 0) + 1);
    variants.set(status, counts);
  });
  const shared = new Map<string, string>();
  const components: Record<string, unknown> = {};
  for (const [status, counts] of variants) {
    const [text] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    shared.set(status, text);
    components[ERROR_NAMES[status]!] = JSON.parse(text);
  }
  each((status, text, responses) => {
    if (shared.get(status) === text) responses[status] = { $ref: `#/components/responses/${ERROR_NAMES[status]}` };
  });
  doc.components = { ...doc.components, responses: { ...doc.components?.responses, ...components } };
  return doc;
}

/** The groups of operations, in the order the page shows them. */
export const TAGS = [
  {
    name: 'clients',
    description:
      'The people who take credits: their data (dni unique within the business), and the read of a client with everything about them.',
  },
  {
    name: 'credits',
    description:
      'Credits granted on a plan, their installments and ledger, payments (punitory posted first, then oldest installment first), write-offs, refinancing, cancellation and the collections worklist.',
  },
  {
    name: 'collections',
    description:
      'Promises to pay on a credit (kept by the payments made by their day, broken otherwise), contact notes on a client, and the collector of a credit.',
  },
  {
    name: 'credit plans',
    description:
      'The terms a credit is granted on (credit configs): installments, interest, punitory, grace and write-off rules. A credit keeps the terms of its plan as they were when it was granted.',
  },
  {
    name: 'branches',
    description: 'Where credits are granted and payments taken. Deleted branches stay listed with deleted_at.',
  },
  {
    name: 'files',
    description:
      "A client's documents (JPEG, PNG, WebP or PDF), uploaded with the API key or through an upload link sent to the client, and downloaded by name.",
  },
  {
    name: 'holidays',
    description:
      'The days the business does not work besides Saturdays and Sundays: an installment due on one is not late until the end of the next business day.',
  },
  {
    name: 'leads',
    description:
      'People who ask the business for a credit through its public form (no API key, the business named by its slug), and their conversion into clients.',
  },
  {
    name: 'verifications',
    description:
      "A client's CUIT checked in the central bank's debtor registry (debts, their history, rejected checks) or the tax authority's register (name, kind, status, address, activities), stored with the registry's answer.",
  },
  {
    name: 'settings',
    description:
      "The business's settings: whether credits need an approved application and how much an employee may approve, the payment reminders, the locale and the time zone.",
  },
  {
    name: 'applications',
    description:
      'Credit applications: submitted with the checks of the plan’s policy, decided by someone other than the submitter (maker-checker), disbursed once into a credit.',
  },
  {
    name: 'events',
    description:
      'What changed, as a feed read oldest first from a sequence: a poller never misses an event and never sees one twice.',
  },
  {
    name: 'webhooks',
    description:
      "Endpoints that receive the business's events as signed POSTs, at least once and in order per credit, retried for 3 days; their deliveries (docs/webhooks.md).",
  },
  {
    name: 'users',
    description:
      "The business's users and their roles, and its API keys: for signed-in admins (the keys for signed-in admins only, never with an API key).",
  },
  {
    name: 'sessions',
    description:
      'Signing in and out (a session cookie and a csrf cookie), the current user, and setting a password from a one-time link. Not under /api: no API key.',
  },
  {
    name: 'operators',
    description: "The platform's operators: list businesses, act as one of a business's users and stop.",
  },
  {
    name: 'notifications',
    description:
      "E-mails to the business's clients (payment reminders) and users (set-password links), and what became of each: sent, retried, failed or not configured.",
  },
  { name: 'reports', description: 'Portfolio figures as of a date, and datasets as CSV.' },
  { name: 'audit', description: 'Every change to the data, with its before and after and who made it, newest first.' },
  { name: 'operations', description: 'Health checks for a load balancer or an orchestrator: no API key.' },
];

export default fp(
  async (app: App) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Lending management service',
          version: API_VERSION,
          description:
            "Clients, credits, installments, payments, ledger, credit plans, branches, client files, reports and audit of one business, selected by the API key. The published API contract 1.0.0 plus extensions: the contract's eleven operations carry x-contract, their number in it (1 to 11); nothing the contract defines is renamed, retyped or given another meaning. " +
            'Send the key as `Authorization: Bearer <key>` or `X-API-Key: <key>`; a key of scope `read` may only read. ' +
            'A signed-in user (POST /auth/login) uses the session cookie instead, with the role each operation names in x-required-role, and sends X-CSRF-Token (the csrf cookie) on writes. ' +
            'Errors are `{"error", "code"}` bodies; lists page with `limit` and `offset`; money is a JSON number with at most 2 decimals; calendar dates are `YYYY-MM-DD` in the business time zone. ' +
            'The guide in the repository (docs/guide.md) explains keys, errors, pagination, idempotency, money and dates.',
        },
        // relative: "Try it out" on /docs and a generated client call the server that served the
        // document; PUBLIC_URL, when set, names the address clients use
        servers: [
          app.config.publicUrl
            ? { url: app.config.publicUrl, description: 'this service (PUBLIC_URL)' }
            : { url: '/', description: 'the server that serves this document' },
        ],
        tags: TAGS,
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
            apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
            session: {
              type: 'apiKey',
              in: 'cookie',
              name: 'lending_session',
              description:
                'The session cookie POST /auth/login sets. A write (POST, PUT, PATCH, DELETE) must also send X-CSRF-Token equal to the csrf cookie. Each operation needs the role in its x-required-role.',
            },
          },
        },
        security: [{ bearer: [] }, { apiKey: [] }, { session: [] }],
      },
      transform: ({ schema, url }) => ({ schema: schema && withRefExamples(schema), url }),
      transformObject: (d) => {
        const doc = ('openapiObject' in d ? d.openapiObject : d.swaggerObject) as OpenApiDocument;
        declareResponseHeaders(doc);
        return sharedErrorResponses(webhooksSection(doc)) as never;
      },
      // shared schemas keep their $id as their name under components.schemas
      refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? `def-${i}`) },
    });
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: true,
      // Swagger UI adds a <style> element of its own at run time (headless Chromium reports it
      // blocked, test/http/docs-page.test.ts): inline styles are allowed, scripts stay 'self' only
      transformStaticCSP: (header) =>
        header.replace("style-src 'self' https:", "style-src 'self' https: 'unsafe-inline'"),
      // the operationIds are the method names of a generated client (sdk/): show them
      uiConfig: { displayOperationId: true, deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 },
    });
  },
  { name: 'openapi' },
);
