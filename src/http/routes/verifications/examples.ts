// The OpenAPI examples of verifications: Ana García (the story's client, src/http/examples.ts) is
// checked in both registries on 2026-01-15, before her credit is granted. Her CUIT is
// 27-28456123-1 (the story's client has no cuit; a verification needs one).
import { ids } from '../../examples.ts';

const CUIT = '27284561231';
const BY = 'api_key:e2cb245c-742f-4033-88e5-20b08de8cf8c';

export const centralBank = {
  id: 'c4a7e0d2-6b1f-4f3a-9d8e-1a2b3c4d5e6f',
  client_id: ids.client,
  source: 'central_bank' as const,
  cuit: CUIT,
  status: 'found' as const,
  summary: {
    name: 'GARCIA ANA',
    period: '2025-12',
    worst_situation: 2,
    total_debt: 412000,
    entities: [
      {
        name: 'BANCO DE LA NACION ARGENTINA',
        situation: 1,
        debt: 150000,
        days_overdue: 0,
        refinanced: false,
        mandatory_recategorization: false,
        legal_situation: false,
        technically_irrecoverable: false,
        under_review: false,
        in_court: false,
      },
      {
        name: 'TARJETA NARANJA S.A.U.',
        situation: 2,
        debt: 262000,
        days_overdue: 45,
        refinanced: false,
        mandatory_recategorization: false,
        legal_situation: false,
        technically_irrecoverable: false,
        under_review: false,
        in_court: false,
      },
    ],
    history: [
      { period: '2025-12', worst_situation: 2, total_debt: 412000 },
      { period: '2025-11', worst_situation: 1, total_debt: 398500 },
    ],
    rejected_checks: 0,
    rejected_checks_unpaid: 0,
    rejected_checks_amount: 0,
  },
  raw: {
    debts: {
      status: 200,
      results: {
        identificacion: 27284561231,
        denominacion: 'GARCIA ANA',
        periodos: [
          {
            periodo: '202512',
            entidades: [
              { entidad: 'BANCO DE LA NACION ARGENTINA', situacion: 1, monto: 150, diasAtrasoPago: 0 },
              { entidad: 'TARJETA NARANJA S.A.U.', situacion: 2, monto: 262, diasAtrasoPago: 45 },
            ],
          },
        ],
      },
    },
    history: {
      status: 200,
      results: {
        identificacion: 27284561231,
        denominacion: 'GARCIA ANA',
        periodos: [
          {
            periodo: '202512',
            entidades: [
              { entidad: 'BANCO DE LA NACION ARGENTINA', situacion: 1, monto: 150 },
              { entidad: 'TARJETA NARANJA S.A.U.', situacion: 2, monto: 262 },
            ],
          },
          {
            periodo: '202511',
            entidades: [
              { entidad: 'BANCO DE LA NACION ARGENTINA', situacion: 1, monto: 160.5 },
              { entidad: 'TARJETA NARANJA S.A.U.', situacion: 1, monto: 238 },
            ],
          },
        ],
      },
    },
    rejected_checks: { status: 404, errorMessages: ['No se encontró datos para la identificación ingresada.'] },
  },
  created_by: BY,
  created_at: '2026-01-15T13:01:30.200Z',
};

export const taxAuthority = {
  id: 'd5b8f1e3-7c2a-4b4b-8e9f-2b3c4d5e6f70',
  client_id: ids.client,
  source: 'tax_authority' as const,
  cuit: CUIT,
  status: 'found' as const,
  summary: {
    name: 'GARCIA ANA',
    kind: 'person' as const,
    status: 'ACTIVO',
    address: {
      street: 'AV CORRIENTES 1234',
      city: 'CAPITAL FEDERAL',
      province: 'CIUDAD AUTONOMA BUENOS AIRES',
      postal_code: '1043',
    },
    activities: [{ id: '620100', description: 'SERVICIOS DE CONSULTORES EN INFORMÁTICA', period: '201904' }],
  },
  raw: {
    get_persona:
      '<soap:Envelope …><soap:Body><ns2:getPersonaResponse …><personaReturn>…</personaReturn></ns2:getPersonaResponse></soap:Body></soap:Envelope>',
  },
  created_by: BY,
  created_at: '2026-01-15T13:01:41.900Z',
};

export const notFound = {
  ...centralBank,
  id: 'e6c9a2f4-8d3b-4c5c-9fa0-3c4d5e6f7081',
  status: 'not_found' as const,
  summary: null,
  raw: {
    debts: { status: 404, errorMessages: ['No se encontró datos para la identificación ingresada.'] },
    history: { status: 404, errorMessages: ['No se encontró datos para la identificación ingresada.'] },
    rejected_checks: { status: 404, errorMessages: ['No se encontró datos para la identificación ingresada.'] },
  },
};
