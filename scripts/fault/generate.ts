// Values from JSON Schemas: valid ones (within every keyword, with hints for names whose valid
// values are ids and dates of this business), and the invalid values a careless or hostile client
// sends (wrong types, out of range, bad formats, huge strings, NUL characters).
import type { Rng } from './rng.ts';
import { withCheckDigit } from '../../src/domain/cuit.ts';
import { deref, type Document, type Schema } from './openapi.ts';

export interface Hints {
  rng: Rng;
  /** a valid value for a property or parameter by its name, or undefined to derive one from the schema */
  named(name: string, schema: Schema): unknown;
}

/** The alternatives of a schema: anyOf/oneOf branches, or each type of a type list. */
export function branches(doc: Document, schema: Schema): Schema[] {
  const s = deref(doc, schema);
  const alts = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alts) return alts.flatMap((a) => branches(doc, a));
  if (Array.isArray(s.type)) return (s.type as string[]).map((type) => ({ ...s, type }));
  return [s];
}

export const allowsNull = (doc: Document, schema: Schema) => branches(doc, schema).some((b) => b.type === 'null');

export function today(offsetDays = 0): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

function validString(s: Schema, h: Hints): string {
  const { rng } = h;
  switch (s.format) {
    case 'uuid':
      return rng.uuid();
    case 'date':
      return today(-rng.int(0, 365));
    case 'date-time':
      return new Date().toISOString();
    case 'email':
      return `${rng.word(6)}@example.com`;
    case 'cuit':
      for (;;) {
        const c = withCheckDigit(`${rng.pick(['20', '23', '27', '30'])}${rng.digits(8)}`);
        if (c) return c;
      }
  }
  if (typeof s.pattern === 'string' && s.pattern.startsWith('^\\d{4}')) return today(-rng.int(0, 365));
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 40, 40);
  return rng.word(rng.int(Math.max(min, 1), Math.max(max, 1)));
}

function validNumber(s: Schema, h: Hints): number {
  const { rng } = h;
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
  const max = Math.min(s.maximum ?? min + 1000, min + 1000);
  if (s.type === 'integer') return rng.int(Math.ceil(min), Math.floor(max));
  if (s.format === 'rate') return rng.int(0, Math.round(Math.min(max, 1) * 10_000)) / 10_000;
  return rng.money(Math.max(min, 0.01), Math.max(max, 0.01));
}

/** A value that satisfies `schema`. */
export function validValue(doc: Document, schema: Schema, h: Hints, name = ''): unknown {
  const hinted = name ? h.named(name, schema) : undefined;
  if (hinted !== undefined) return hinted;
  const alts = branches(doc, schema);
  // prefer a real value to null
  const nonNull = alts.filter((b) => b.type !== 'null');
  const s =
    nonNull.length && (nonNull.length === alts.length || h.rng.chance(0.85)) ? h.rng.pick(nonNull) : h.rng.pick(alts);
  if (Array.isArray(s.enum)) return h.rng.pick(s.enum);
  if ('const' in s) return s.const;
  switch (s.type) {
    case 'null':
      return null;
    case 'boolean':
      return h.rng.chance(0.5);
    case 'integer':
    case 'number':
      return validNumber(s, h);
    case 'string':
      return validString(s, h);
    case 'array':
      return Array.from({ length: h.rng.int(0, 2) }, () => validValue(doc, s.items ?? {}, h));
    case 'object':
      return validObject(doc, s, h);
    default:
      // `{}` (read-only fields a client may send back): anything goes
      return h.rng.pick([null, 'x', 1]);
  }
}

/** The object alternative of a body schema (an upload-session body is an object or null). */
export const objectSchema = (doc: Document, schema: Schema): Schema =>
  branches(doc, schema).find((b) => b.type === 'object') ?? deref(doc, schema);

export function validObject(doc: Document, schema: Schema, h: Hints): Record<string, unknown> {
  const s = objectSchema(doc, schema);
  const required = new Set<string>(s.required ?? []);
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
    const readOnlyEcho = Object.keys(prop).length === 0;
    if (required.has(name) || h.rng.chance(readOnlyEcho ? 0.05 : 0.5)) out[name] = validValue(doc, prop, h, name);
  }
  return out;
}

/** Kinds of invalid value, each with the text the summary shows. */
export type BadKind = 'wrong type' | 'out of range' | 'bad format' | 'huge string' | 'NUL character';

const BAD_DATES = [
  '2024-02-30',
  '0000-01-01',
  '10000-01-01',
  '2024-1-1',
  '24-01-01',
  '2024-13-01',
  '2024-01-01T00:00:00Z',
  '',
  'today',
  '-001-01-01',
];
const BAD_UUIDS = [
  'not-a-uuid',
  '123e4567-e89b-12d3-a456-42661417400',
  '123e4567-e89b-12d3-a456-4266141740000',
  'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
  '',
  "' OR 1=1 --",
];
const BAD_EMAILS = ['a@', 'no-at-sign', '@example.com', 'a b@example.com'];
// a wrong check digit, one dash, 10 digits, other separators
const BAD_CUITS = ['20123456787', '20-123456786', '2012345678', '20 12345678 6', '20.12345678.6'];

/**
 * An invalid value for a property or parameter with this schema, or null if this kind cannot
 * make one (e.g. no format to break). Values are JSON values; query and path callers stringify.
 */
export function invalidValue(doc: Document, schema: Schema, kind: BadKind, rng: Rng): { value: unknown } | null {
  const alts = branches(doc, schema).filter((b) => b.type !== 'null');
  const s = alts.length ? rng.pick(alts) : deref(doc, schema);
  const types = new Set(
    branches(doc, schema).map((b) => b.type ?? (Array.isArray(b.enum) ? typeof b.enum[0] : undefined)),
  );
  switch (kind) {
    case 'wrong type': {
      const candidates: unknown[] = [];
      if (!types.has('string')) candidates.push('12', 'true', rng.word());
      if (!types.has('number') && !types.has('integer')) candidates.push(12345, -1.5);
      if (!types.has('boolean')) candidates.push(true);
      if (!types.has('object')) candidates.push({ a: 1 });
      if (!types.has('array')) candidates.push([1, 'x']);
      if (!types.has('null')) candidates.push(null);
      return candidates.length ? { value: rng.pick(candidates) } : null;
    }
    case 'out of range': {
      const c: unknown[] = [];
      if (s.type === 'integer' || s.type === 'number') {
        if (s.maximum !== undefined) c.push(s.maximum + (s.type === 'integer' ? 1 : 0.01), 1e20);
        if (s.minimum !== undefined) c.push(s.minimum - 1);
        if (s.type === 'integer') c.push(1.5);
        if (s.format === 'money') c.push(1.005, 0.001, -5, 0);
        if (s.format === 'rate') c.push(0.1234567);
      }
      if (s.type === 'string') {
        if (s.maxLength !== undefined) c.push('x'.repeat(s.maxLength + 1));
        if (s.minLength) c.push('');
        if (s.pattern === '\\S') c.push('   ', '\t\n');
      }
      if (Array.isArray(s.enum)) c.push(`${s.enum[0]}x`, String(s.enum[0]).toUpperCase() + '_');
      return c.length ? { value: rng.pick(c) } : null;
    }
    case 'bad format': {
      if (s.format === 'uuid') return { value: rng.pick(BAD_UUIDS) };
      if (s.format === 'date' || (typeof s.pattern === 'string' && s.pattern.startsWith('^\\d{4}')))
        return { value: rng.pick(BAD_DATES) };
      if (s.format === 'date-time') return { value: rng.pick(['2024-01-01T25:00:00Z', 'yesterday']) };
      if (s.format === 'email') return { value: rng.pick(BAD_EMAILS) };
      if (s.format === 'cuit') return { value: rng.pick(BAD_CUITS) };
      if (typeof s.pattern === 'string') return { value: rng.pick(['', '../../etc/passwd', 'ul_short']) };
      return null;
    }
    case 'huge string':
      return { value: 'x'.repeat(rng.pick([10_000, 100_000, 600_000])) };
    case 'NUL character':
      return { value: rng.pick(['a\u0000b', '\u0000', 'x'.repeat(5) + '\u0000']) };
  }
}

export const BAD_KINDS: BadKind[] = ['wrong type', 'out of range', 'bad format', 'huge string', 'NUL character'];
