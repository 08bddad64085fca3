// Client verifications (docs/verification.md): ask the central bank's debtor
// registry or the tax authority's register about a client's CUIT, and list what they said.
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import {
  Page,
  PageQuery,
  Verification,
  VerificationSource,
  documented,
  errorResponse,
  example,
  idParams,
  ref,
} from '../../schemas.ts';
import * as ex from '../../examples.ts';
import * as vx from './examples.ts';
import { pageRequest } from '../../helpers.ts';
import { write } from '../../idempotency.ts';
import { type VerifyResult, listVerifications, registries, verifyClient } from '../../../services/verifications.ts';

const IdParams = idParams(ex.ids.client);

const CreateBody = example(Type.Object({ source: VerificationSource }, { additionalProperties: false }), {
  source: 'central_bank',
});

export default async function verificationRoutes(app: App) {
  // one per app: the tax authority's login ticket is kept between requests
  const reg = registries(app.db, app.config.verification);
  const ttl = app.config.verification.ttlHours;

  // employees may check a client, like the other client writes (API keys with scope full)
  app.post(
    '/clients/:id/verifications',
    {
      config: { role: 'employee' },
      schema: {
        operationId: 'verifyClient',
        tags: ['verifications'],
        summary: "Check a client's CUIT in the central bank's debtor registry or the tax authority's register",
        description: `Asks the registry and stores its answer (201). A verification of the same source and CUIT younger than VERIFICATION_TTL_HOURS (${ttl} on this server) is answered instead (200) unless refresh=true. The client needs a cuit (422). A registry that fails or does not answer within the timeout is a 502 upstream_error and nothing is stored; the tax authority answers 503 not_configured when the server has no ARCA certificate.`,
        params: IdParams,
        querystring: Type.Object(
          {
            refresh: Type.Optional(
              Type.Boolean({ description: 'true: ask the registry even when a recent verification exists' }),
            ),
          },
          { additionalProperties: false },
        ),
        body: CreateBody,
        response: {
          200: documented(ref(Verification), 'A verification younger than the TTL, answered again', vx.centralBank),
          201: documented(
            ref(Verification),
            "The registry's answer, stored",
            vx.centralBank,
            vx.taxAuthority,
            vx.notFound,
          ),
          422: errorResponse(422, {
            error: 'the client has no cuit: set it (PUT /api/clients/{id}) before verifying',
            code: 'unprocessable',
            details: [{ path: '/cuit', message: 'required for a verification' }],
          }),
          502: errorResponse(502),
          503: errorResponse(503, {
            error:
              "the tax authority is not configured on this server: set ARCA_CERT, ARCA_KEY and ARCA_CUIT (the business's ARCA certificate)",
            code: 'not_configured',
          }),
        },
      },
    },
    async (req, reply) =>
      write(
        req,
        reply,
        (r: VerifyResult) => (r.created ? 201 : 200),
        (ctx) => verifyClient(app.db, reg, ctx, req.params.id, { source: req.body.source, refresh: req.query.refresh }),
        (r) => r.verification,
      ),
  );

  app.get(
    '/clients/:id/verifications',
    {
      schema: {
        operationId: 'listClientVerifications',
        tags: ['verifications'],
        summary: "List a client's verifications, newest first; source narrows them",
        params: IdParams,
        querystring: Type.Object(
          { source: Type.Optional(VerificationSource), ...PageQuery },
          { additionalProperties: false },
        ),
        response: {
          200: documented(
            Page(ref(Verification)),
            "The client's verifications",
            ex.page([vx.taxAuthority, vx.centralBank]),
          ),
        },
      },
    },
    async (req) =>
      listVerifications(app.db, req.auth, req.params.id, { source: req.query.source, ...pageRequest(req.query) }),
  );
}
