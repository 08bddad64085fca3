// The OpenAPI 3.1 document, built from the route schemas registered after this plugin, and its
// browsable view at /docs (GET /openapi.json serves the document: routes/ops.ts).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import type { App } from '../types.ts';

export default fp(
  async (app: App) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Lending management service',
          version: '1.0.0',
          description:
            'Clients, credits, installments, payments, ledger, credit plans, branches, client files, reports and audit of one business, selected by the API key. Contract 1.0.0 plus extensions.',
        },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
            apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          },
        },
        security: [{ bearer: [] }, { apiKey: [] }],
      },
      // shared schemas keep their $id as their name under components.schemas
      refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? `def-${i}`) },
    });
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  },
  { name: 'openapi' },
);
