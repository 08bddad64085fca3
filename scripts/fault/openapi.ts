// The service's own OpenAPI document as the fuzzer reads it: its operations, what each accepts, and
// validators (ajv, with the document's components) for what each may answer.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its function is the default export at run time, .default in its types
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  a: Ajv,
) => Ajv;

// a JSON Schema as found in the document
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Schema = Record<string, any>;

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
  description?: string;
}

export interface Operation {
  /** "POST /api/clients/{id}/files" */
  id: string;
  method: string;
  path: string;
  params: Param[];
  body: { contentType: string; required: boolean; schema: Schema } | null;
  /** status (as text, or "default", "4XX") → the declared media type and schema, if any */
  responses: Record<string, { contentType: string | null; schema: Schema | null }>;
  /** no API key (security: []) */
  public: boolean;
}

export interface Document {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema>; responses?: Record<string, Schema> };
}

/** A response, or the shared one (components.responses) it references. */
const resolveResponse = (doc: Document, r: Schema): Schema =>
  typeof r.$ref === 'string' ? (doc.components.responses?.[r.$ref.split('/').pop()!] ?? r) : r;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operations(doc: Document): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const content = op.requestBody?.content as Record<string, { schema: Schema }> | undefined;
      const [contentType, media] = content ? Object.entries(content)[0]! : [];
      const responses: Operation['responses'] = {};
      for (const [status, ref] of Object.entries(op.responses as Record<string, Schema>)) {
        const r = resolveResponse(doc, ref);
        const [ct, m] = Object.entries((r.content ?? {}) as Record<string, { schema?: Schema }>)[0] ?? [null, null];
        responses[status] = { contentType: ct, schema: m?.schema ?? null };
      }
      ops.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params: ((op.parameters ?? []) as Param[]).map((p) => ({ ...p, required: Boolean(p.required) })),
        body:
          contentType && media
            ? { contentType, required: Boolean(op.requestBody.required), schema: media.schema }
            : null,
        responses,
        public: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return ops;
}

/** Whether the document declares `status` for the operation (exactly, as a range like 4XX, or as default). */
export function declares(op: Operation, status: number): boolean {
  return String(status) in op.responses || `${String(status)[0]}XX` in op.responses || 'default' in op.responses;
}

/** Follows a local $ref ("#/components/schemas/Client"). */
export function deref(doc: Document, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; s && typeof s.$ref === 'string' && i < 20; i++) {
    const parts = (s.$ref as string).replace(/^#\//, '').split('/');
    s = parts.reduce<Schema>((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc as Schema);
  }
  return s;
}

/** Every `enum` and `const` value under a schema (the Error code is an anyOf of one-value enums). */
export function enumValues(schema: Schema): string[] {
  const out: string[] = [];
  const walk = (s: unknown) => {
    if (!s || typeof s !== 'object') return;
    const o = s as Schema;
    if (Array.isArray(o.enum)) out.push(...o.enum.map(String));
    if ('const' in o) out.push(String(o.const));
    for (const v of Object.values(o)) if (v && typeof v === 'object') walk(v);
  };
  walk(schema);
  return [...new Set(out)];
}

/** Validators for the document's response schemas, refs resolved against its components. */
export class ResponseValidators {
  private readonly ajv: Ajv;
  private readonly cache = new Map<Schema, ValidateFunction>();
  readonly errorCodes: string[];

  private readonly doc: Document;

  constructor(doc: Document) {
    this.doc = doc;
    this.ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
    addFormats(this.ajv);
    // the service's input formats (src/http/plugins/validation.ts judges them; here they only need to be known)
    for (const f of ['money', 'rate', 'cuit', 'binary']) this.ajv.addFormat(f, true);
    const error = doc.components.schemas.Error;
    if (!error) throw new Error('the OpenAPI document has no Error schema');
    this.errorCodes = enumValues(error.properties?.code ?? {});
  }

  /** null when `body` matches `schema`, else the first problems in a line */
  check(schema: Schema, body: unknown): string | null {
    let validate = this.cache.get(schema);
    if (!validate) {
      // the components travel with the schema so that "#/components/schemas/X" resolves
      validate = this.ajv.compile({ ...schema, components: this.doc.components });
      this.cache.set(schema, validate);
    }
    if (validate(body)) return null;
    return (validate.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ');
  }

  checkError(body: unknown): string | null {
    return this.check(this.doc.components.schemas.Error!, body);
  }
}
