// What the registries say about a CUIT, reduced to the summaries a verification answers
// (docs/verification.md). Pure: the answers arrive parsed (src/registries), the shapes are checked
// here against the registries' documented formats, and the summaries are built from them.
//
// Central bank (BCRA Central de Deudores v1.0): amounts of debts are in thousands of pesos; the
// summary's are in pesos. A rejected check's amount is the check's own, in pesos.
// Tax authority (ARCA padrón A13, getPersona): the persona element, parsed from XML, so every leaf
// is text and repeated elements may arrive as one object or an array.
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { Dec, type Decimal, toMoneyNumber } from './money.ts';

// ---------------------------------------------------------------- central bank: the answers

const Flag = Type.Optional(Type.Union([Type.Boolean(), Type.Null()]));
const Num = Type.Number();
const NullableNum = Type.Optional(Type.Union([Type.Number(), Type.Null()]));
const NullableText = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const Id = Type.Optional(Type.Union([Type.Number(), Type.String()]));

/** The envelope every Central de Deudores answer shares around its own results. */
const bcraAnswer = <T extends Parameters<typeof Type.Object>[0]>(results: T) =>
  Type.Object({
    status: Type.Optional(Type.Integer()),
    results: Type.Object({ identificacion: Id, denominacion: NullableText, ...results }),
  });

/** An entity's report in a period: Deudas has every field, Deudas/Historicas fewer. */
const DebtEntity = Type.Object({
  entidad: Type.Union([Type.String(), Type.Number()]),
  situacion: Type.Integer(),
  monto: Num,
  fechaSit1: NullableText,
  diasAtrasoPago: NullableNum,
  refinanciaciones: Flag,
  recategorizacionOblig: Flag,
  situacionJuridica: Flag,
  irrecDisposicionTecnica: Flag,
  enRevision: Flag,
  procesoJud: Flag,
});

/** The answer of Deudas/{cuit} and Deudas/Historicas/{cuit} (200). */
export const BcraDebts = bcraAnswer({
  periodos: Type.Array(
    Type.Object({ periodo: Type.Union([Type.String(), Type.Number()]), entidades: Type.Array(DebtEntity) }),
  ),
});
export type BcraDebts = Static<typeof BcraDebts>;

const RejectedCheck = Type.Object({
  nroCheque: Id,
  fechaRechazo: NullableText,
  monto: Num,
  fechaPago: NullableText,
  fechaPagoMulta: NullableText,
  estadoMulta: NullableText,
});

/** The answer of Deudas/ChequesRechazados/{cuit} (200). */
export const BcraRejectedChecks = bcraAnswer({
  causales: Type.Array(
    Type.Object({
      causal: Type.Optional(Type.String()),
      entidades: Type.Array(Type.Object({ entidad: Id, detalle: Type.Array(RejectedCheck) })),
    }),
  ),
});
export type BcraRejectedChecks = Static<typeof BcraRejectedChecks>;

/** Where an answer departs from its documented format (the first place), or null when it does not. */
export function formatProblem(schema: typeof BcraDebts | typeof BcraRejectedChecks, answer: unknown): string | null {
  if (Value.Check(schema, answer)) return null;
  const first = [...Value.Errors(schema, answer)][0];
  return first ? `${first.instancePath || '/'} ${first.message}` : 'unexpected shape';
}

// ---------------------------------------------------------------- central bank: the summary

export interface CentralBankEntity {
  name: string;
  situation: number;
  debt: number;
  days_overdue: number | null;
  refinanced: boolean;
  mandatory_recategorization: boolean;
  legal_situation: boolean;
  technically_irrecoverable: boolean;
  under_review: boolean;
  in_court: boolean;
}

export interface CentralBankSummary {
  name: string | null;
  period: string | null;
  worst_situation: number | null;
  total_debt: number;
  entities: CentralBankEntity[];
  history: { period: string; worst_situation: number | null; total_debt: number }[];
  /** bounced checks on file */
  rejected_checks: number;
  /** of them, those without a payment date */
  rejected_checks_unpaid: number;
  /** their face value in pesos */
  rejected_checks_amount: number;
}

/** "202412" → "2024-12"; a period already written so, or anything else, is kept. */
export function periodOf(p: string | number): string {
  const s = String(p);
  return /^\d{6}$/.test(s) ? `${s.slice(0, 4)}-${s.slice(4)}` : s;
}

/** The registry's thousands of pesos, in pesos. */
const pesos = (thousands: number): Decimal => new Dec(thousands).times(1000);

function periodFigures(entities: Static<typeof DebtEntity>[]) {
  const total = entities.reduce((s, e) => s.plus(pesos(e.monto)), new Dec(0));
  const worst = entities.length ? Math.max(...entities.map((e) => e.situacion)) : null;
  return { worst_situation: worst, total_debt: toMoneyNumber(total) };
}

const newestFirst = <T extends { periodo: string | number }>(periods: T[]): T[] =>
  [...periods].sort((a, b) => periodOf(b.periodo).localeCompare(periodOf(a.periodo)));

/**
 * The summary of the three answers; a part the registry did not find (404) is null. The current
 * situation is the latest period of Deudas; the history lists every period of Deudas/Historicas,
 * newest first.
 */
export function centralBankSummary(parts: {
  debts: BcraDebts | null;
  history: BcraDebts | null;
  checks: BcraRejectedChecks | null;
}): CentralBankSummary {
  const { debts, history, checks } = parts;
  const name = debts?.results.denominacion ?? history?.results.denominacion ?? checks?.results.denominacion ?? null;
  const current = debts ? newestFirst(debts.results.periodos)[0] : undefined;
  const entities = current?.entidades ?? [];
  const detail = (checks?.results.causales ?? []).flatMap((c) => c.entidades.flatMap((e) => e.detalle));
  return {
    name: name?.trim() || null,
    period: current ? periodOf(current.periodo) : null,
    ...periodFigures(entities),
    entities: entities.map((e) => ({
      name: String(e.entidad).trim(),
      situation: e.situacion,
      debt: toMoneyNumber(pesos(e.monto)),
      days_overdue: e.diasAtrasoPago ?? null,
      refinanced: e.refinanciaciones === true,
      mandatory_recategorization: e.recategorizacionOblig === true,
      legal_situation: e.situacionJuridica === true,
      technically_irrecoverable: e.irrecDisposicionTecnica === true,
      under_review: e.enRevision === true,
      in_court: e.procesoJud === true,
    })),
    history: newestFirst(history?.results.periodos ?? []).map((p) => ({
      period: periodOf(p.periodo),
      ...periodFigures(p.entidades),
    })),
    rejected_checks: detail.length,
    rejected_checks_unpaid: detail.filter((d) => !d.fechaPago).length,
    rejected_checks_amount: toMoneyNumber(detail.reduce((s, d) => s.plus(new Dec(d.monto)), new Dec(0))),
  };
}

// ---------------------------------------------------------------- tax authority

/** A node of parsed XML: text, an element, or several elements of one name. */
type Xml = string | { [name: string]: Xml } | Xml[];

export interface TaxAuthoritySummary {
  name: string | null;
  kind: 'person' | 'company';
  status: string | null;
  address: { street: string | null; city: string | null; province: string | null; postal_code: string | null } | null;
  activities: { id: string; description: string | null; period: string | null }[];
}

const list = (x: Xml | undefined): Xml[] => (x === undefined || x === '' ? [] : Array.isArray(x) ? x : [x]);
const text = (x: Xml | undefined): string | null => {
  if (typeof x === 'string') return x.trim() || null;
  if (typeof x === 'number') return String(x);
  return null;
};
const field = (node: Xml | undefined, name: string): Xml | undefined =>
  node && typeof node === 'object' && !Array.isArray(node) ? node[name] : undefined;

/** Companies' CUITs start 30, 33 or 34; people's 20, 23, 24, 27. */
const kindOfCuit = (cuit: string): 'person' | 'company' => (/^3[034]/.test(cuit) ? 'company' : 'person');

/** The summary of getPersona's persona element. */
export function taxAuthoritySummary(persona: Xml, cuit: string): TaxAuthoritySummary {
  const tipo = text(field(persona, 'tipoPersona'))?.toUpperCase();
  const kind = tipo === 'JURIDICA' ? 'company' : tipo === 'FISICA' ? 'person' : kindOfCuit(cuit);
  const razonSocial = text(field(persona, 'razonSocial'));
  const fullName = [text(field(persona, 'apellido')), text(field(persona, 'nombre'))].filter(Boolean).join(' ');
  const addresses = list(field(persona, 'domicilio'));
  const fiscal =
    addresses.find((d) => text(field(d, 'tipoDomicilio'))?.toUpperCase() === 'FISCAL') ?? addresses[0] ?? null;
  const listed = list(field(persona, 'actividad'));
  const activities = listed.length
    ? listed.map((a) => ({
        id: text(field(a, 'idActividad')) ?? '',
        description: text(field(a, 'descripcionActividad')),
        period: text(field(a, 'periodo')),
      }))
    : text(field(persona, 'idActividadPrincipal'))
      ? [
          {
            id: text(field(persona, 'idActividadPrincipal'))!,
            description: text(field(persona, 'descripcionActividadPrincipal')),
            period: text(field(persona, 'periodoActividadPrincipal')),
          },
        ]
      : [];
  return {
    name: razonSocial ?? (fullName || null),
    kind,
    status: text(field(persona, 'estadoClave')),
    address: fiscal
      ? {
          street: text(field(fiscal, 'direccion')),
          city: text(field(fiscal, 'localidad')),
          province: text(field(fiscal, 'descripcionProvincia')),
          postal_code: text(field(fiscal, 'codigoPostal')),
        }
      : null,
    activities: activities.filter((a) => a.id),
  };
}
