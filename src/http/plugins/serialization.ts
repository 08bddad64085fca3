// Response bodies are written by fast-json-stringify from the route's response schemas, as Fastify
// does by default, with one serializer per distinct schema for the whole app: every route declares
// the same Error responses (declaredErrors.ts). The cache and the schemas not compiled yet belong
// to the app (closed over by installSerialization), so two apps in one process share nothing.
import fastJson, { type Options, type Schema } from 'fast-json-stringify';
import { CUIT_FORMAT, INSTANT_FORMAT, type JsonSchema, MONEY_FORMAT, RATE_FORMAT, SHARED_SCHEMAS } from '../schemas.ts';
import type { App } from '../types.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** compiles every response schema the app declared and has not compiled yet (see compileDeclaredSerializers) */
    compileDeclaredSerializers(): number;
  }
}

const externals = Object.fromEntries(SHARED_SCHEMAS.map((s) => [(s as JsonSchema).$id as string, s])) as Record<
  string,
  Schema
>;
// the records carry the input formats (their limits are the bodies'); the serializer only needs to
// know their names (it runs Ajv only to pick an anyOf branch; an unknown name is logged as a warning)
const ajv: Options['ajv'] = {
  formats: { [MONEY_FORMAT]: true, [RATE_FORMAT]: true, [CUIT_FORMAT]: true, [INSTANT_FORMAT]: true },
};

function compile(schema: Schema): (doc: unknown) => string {
  // a response that is itself a shared schema must not also come in as an external one
  const id = (schema as { $id?: string }).$id;
  const { [id ?? '']: _self, ...others } = externals;
  return fastJson(schema, { schema: id ? others : externals, ajv });
}

// Compiled at a schema's first response, not at the start: an app starts with hundreds of route and
// status schemas and a test process (or a command) uses few of them; compiling them all took most
// of a start. compileDeclaredSerializers compiles every one (the app's test does, so a schema
// fast-json-stringify refuses still fails a test).
export function installSerialization(app: App) {
  const serializers = new Map<string, (doc: unknown) => string>();
  /** the response schemas given to the compiler and not compiled yet */
  const pending = new Set<Schema>();
  const serializerFor = (schema: Schema) => {
    const key = JSON.stringify(schema);
    let s = serializers.get(key);
    if (!s) {
      s = compile(schema);
      serializers.set(key, s);
    }
    return s;
  };
  app.setSerializerCompiler(({ schema }) => {
    let s: ((doc: unknown) => string) | null = null;
    pending.add(schema as Schema);
    return (doc: unknown) => {
      if (!s) {
        s = serializerFor(schema as Schema);
        pending.delete(schema as Schema);
      }
      return s(doc);
    };
  });
  app.decorate('compileDeclaredSerializers', () => {
    const all = [...pending];
    for (const schema of all) {
      serializerFor(schema);
      pending.delete(schema);
    }
    return all.length;
  });
}

/** Compiles every response schema the app declared so far (it throws on the first one fast-json-stringify refuses). */
export function compileDeclaredSerializers(app: App): number {
  return app.compileDeclaredSerializers();
}
