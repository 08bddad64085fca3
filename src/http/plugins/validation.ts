// Fastify's default Ajv coerces types and silently drops unknown fields. Bodies get neither: a
// wrong type or an unknown field is a 400. Query strings and path parameters arrive as text, so
// they keep type coercion (limit=10 is the number 10), and nothing is removed anywhere.
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its function is the default export at run time, .default in its types
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;
import type { TSchema } from '@sinclair/typebox';
import type { App } from '../types.ts';

function makeAjv(opts: Options) {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, ...opts });
  addFormats(ajv);
  return ajv;
}

export function installValidation(app: App, shared: TSchema[]) {
  const body = makeAjv({ coerceTypes: false });
  const text = makeAjv({ coerceTypes: 'array' });
  for (const s of shared) {
    body.addSchema(s);
    text.addSchema(s);
  }
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? body : text).compile(schema));
}
