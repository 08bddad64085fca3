// Guarantors and co-borrowers of a credit (docs/applications.md "Guarantors"): added and removed
// by employees; the credit read lists them, the client read lists the credits a client backs.
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { Guarantor, GuarantorRole, UuidParam, Uuid, documented, errors, example, ref } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { write } from '../../idempotency.ts';
import { addGuarantor, removeGuarantor } from '../../../services/guarantors.ts';

const GUARANTOR_ID = '5b1c7a52-8f0e-4d7e-9a51-3c2b8e6f1d40';
const guarantorExample = {
  id: GUARANTOR_ID,
  credit_id: ex.ids.credit,
  client_id: '0f4e2d1c-6b5a-4978-8a3b-2c1d0e9f8a7b',
  role: 'guarantor' as const,
  created_at: '2026-01-15T13:05:00.000Z',
};

const CreateBody = example(Type.Object({ client_id: Uuid, role: GuarantorRole }, { additionalProperties: false }), {
  client_id: guarantorExample.client_id,
  role: 'guarantor',
});

export default async function guarantorRoutes(app: App) {
  app.post(
    '/credits/:id/guarantors',
    {
      config: { role: 'employee' },
      schema: {
        operationId: 'addGuarantor',
        tags: ['credits'],
        summary: 'Add a guarantor or co-borrower to a credit',
        description:
          'The client must be of the same business and not the borrower (422); a client backs a credit once (409).',
        params: Type.Object({ id: UuidParam(ex.ids.credit) }),
        body: CreateBody,
        response: { 201: documented(ref(Guarantor), 'The guarantor added', guarantorExample), ...errors(409, 422) },
      },
    },
    async (req, reply) =>
      write(req, reply, 201, (ctx) =>
        addGuarantor(app.db, ctx, req.params.id, { client_id: req.body.client_id, role: req.body.role }),
      ),
  );

  app.delete(
    '/credits/:id/guarantors/:guarantorId',
    {
      config: { role: 'employee' },
      schema: {
        operationId: 'removeGuarantor',
        tags: ['credits'],
        summary: 'Remove a guarantor or co-borrower from a credit',
        params: Type.Object({ id: UuidParam(ex.ids.credit), guarantorId: UuidParam(GUARANTOR_ID) }),
        response: { 200: documented(ref(Guarantor), 'The guarantor removed', guarantorExample) },
      },
    },
    async (req) => removeGuarantor(app.db, req.auth, req.params.id, req.params.guarantorId),
  );
}
