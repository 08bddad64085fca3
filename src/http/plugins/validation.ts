// Fastify's default Ajv coerces types and silently drops unknown fields. Bodies get neither: a
// wrong type or an unknown field is a 400. Query strings and path parameters arrive as text, so
// they keep type coercion (limit=10 is the number 10), and nothing is removed anywhere.
// The input formats of src/domain/records.ts (date, instant, money, rate, uuid, cuit) are registered here, so every
// input rule is a schema keyword the OpenAPI document shows.
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from 'typebox';
import { hasAtMostDecimals, isUuid, isValidCuit, isValidDate, isValidInstant } from '../../domain/index.ts';
import {
  CUIT_FORMAT,
  DATE_FORMAT,
  INSTANT_FORMAT,
  MONEY_FORMAT,
  RATE_FORMAT,
  UUID_FORMAT,
} from '../../domain/records.ts';
import { SHARED_SCHEMAS } from '../schemas.ts';
import type { App } from '../types.ts';

// ajv-formats is CommonJS: its function is the default export at run time, .default in its types
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  a: Ajv,
) => Ajv;

/** An Ajv with the service's input formats (the OpenAPI test validates the document's examples with it). */
export function makeAjv(opts: Options) {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, ...opts });
  addFormats(ajv);
  // ajv-formats' date accepts year 0000, which no database calendar has: one rule everywhere
  ajv.addFormat(DATE_FORMAT, { type: 'string', validate: (s: string) => isValidDate(s) });
  ajv.addFormat(MONEY_FORMAT, { type: 'number', validate: (x: number) => hasAtMostDecimals(x, 2) });
  ajv.addFormat(RATE_FORMAT, { type: 'number', validate: (x: number) => hasAtMostDecimals(x, 6) });
  // and its uuid a "urn:uuid:" prefix, which no id has (the database refuses it): the domain's one definition
  ajv.addFormat(UUID_FORMAT, { type: 'string', validate: isUuid });
  // a CUIT's shape and check digit: a wrong check digit is a 400 naming /cuit, like any bad field
  ajv.addFormat(CUIT_FORMAT, { type: 'string', validate: isValidCuit });
  // an instant with its offset, a real one (no 2026-02-30T…, no 25:00)
  ajv.addFormat(INSTANT_FORMAT, { type: 'string', validate: isValidInstant });
  return ajv;
}

// One validator per distinct schema and kind of input, for the whole process: the shared schemas
// and the options are this module's constants, so a validator compiled for one app instance is the
// same for the next (the tests build many; compiling every route's schemas took most of a build).
let compilers: { body: Ajv; text: Ajv } | null = null;
const validators = new Map<string, ValidateFunction>();

function validatorFor(schema: TSchema, kind: 'body' | 'text'): ValidateFunction {
  if (!compilers) {
    compilers = { body: makeAjv({ coerceTypes: false }), text: makeAjv({ coerceTypes: 'array' }) };
    for (const s of SHARED_SCHEMAS) {
      compilers.body.addSchema(s);
      compilers.text.addSchema(s);
    }
  }
  const key = `${kind} ${JSON.stringify(schema)}`;
  let v = validators.get(key);
  if (!v) {
    v = compilers[kind].compile(schema);
    validators.set(key, v);
  }
  return v;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** compiles every request schema the app declared and has not compiled yet (see compileDeclaredValidators) */
    compileDeclaredValidators(): number;
  }
}

// Compiled at a schema's first request, not at the start, like the serializers
// (serialization.ts): an app starts with hundreds of route schemas and a test process (or a
// command) validates few of them; compiling them all was most of the rest of an app's start.
// compileDeclaredValidators compiles every one (the app's test does, so a schema Ajv refuses
// still fails a test). The schemas not compiled yet belong to the app, as its serializers' do.
export function installValidation(app: App) {
  /** this app's request validators not compiled yet */
  const pending = new Set<() => ValidateFunction>();
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const kind = httpPart === 'body' ? 'body' : 'text';
    let v: ValidateFunction | null = null;
    const compile = () => {
      if (!v) {
        v = validatorFor(schema as TSchema, kind);
        pending.delete(compile);
      }
      return v;
    };
    pending.add(compile);
    const validate = (data: unknown, ctx?: Parameters<ValidateFunction>[1]) => compile()(data, ctx);
    // Fastify reads a failed validation's errors from the function, and gives an Ajv validator
    // (one with schemaEnv) the request as the value's parent, so a root value can be coerced or
    // defaulted: the wrapper answers both as the compiled validator would
    Object.defineProperty(validate, 'errors', { get: () => v?.errors ?? null });
    Object.defineProperty(validate, 'schemaEnv', { get: () => compile().schemaEnv });
    return validate;
  });
  app.decorate('compileDeclaredValidators', () => {
    const all = [...pending];
    for (const compile of all) compile();
    return all.length;
  });
}

/** Compiles every request schema the app declared so far (it throws on the first one Ajv refuses). */
export function compileDeclaredValidators(app: App): number {
  return app.compileDeclaredValidators();
}
