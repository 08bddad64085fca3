// The OpenAPI-driven fuzzer: the real server on a fresh database, a business and keys made with the
// command line, a few resources seeded through the API, then for every operation of
// /openapi.json requests generated from its schemas, valid and invalid. What must hold:
// no 5xx (but a registry's declared 502/503) and every request answered; every 4xx an Error body whose code is in the Error schema's
// enum; every 2xx body matching the operation's declared response; every status declared for the
// operation; a refused write (4xx) writes nothing (audit log total, stored files); an id of
// another business is never served; no API key or upload token reaches the server's log.
import { Rng } from './rng.ts';
import { bearer, describe, jsonHeaders, send, type Request, type Response } from './http.ts';
import {
  ResponseValidators,
  declares,
  operations,
  type Document,
  type Operation,
  type Param,
  type Schema,
} from './openapi.ts';
import {
  BAD_KINDS,
  allowsNull,
  invalidValue,
  objectSchema,
  today,
  validObject,
  validValue,
  type Hints,
} from './generate.ts';
import { ServerProcess, countFiles, createTarget, createTenant, type DbKind, type Tenant } from './server.ts';

export interface FuzzOptions {
  db: DbKind;
  /** where fresh PostgreSQL databases are created */
  postgresUrl: string;
  seed: number;
  count: number;
  /** how long one request may go unanswered */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export type Check =
  | 'no answer'
  | '5xx'
  | 'error body'
  | 'response schema'
  | 'media type'
  | 'undeclared status'
  | 'refused write wrote'
  | 'cross-tenant'
  | 'secret in log';

export interface Failure {
  check: Check;
  op: string;
  status: number;
  detail: string;
  /** the first request that showed it ('' for the server log) */
  request: string;
  count: number;
}

export interface FuzzReport {
  db: DbKind;
  seed: number;
  requests: number;
  byStatus: Record<string, number>;
  valid: number;
  invalid: number;
  /** operations that answered 2xx at least once */
  opsWith2xx: number;
  ops: number;
  startMs: number;
  failures: Failure[];
}

// a 1×1 PNG: the smallest file the service accepts
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
// uploads above this are refused, so that the fuzzer can reach the 413 cheaply
const MAX_FILE_BYTES = 64 * 1024;

type Kind = 'client' | 'plan' | 'branch' | 'credit' | 'file' | 'session';
interface FileRec {
  id: string;
  clientId: string;
  name: string;
}
interface SessionRec {
  id: string;
  clientId: string;
  token: string;
}
interface Pools {
  client: string[];
  plan: string[];
  branch: string[];
  credit: string[];
  file: FileRec[];
  session: SessionRec[];
}

const BY_NAME: Record<string, Kind | 'fileName' | 'token'> = {
  clientId: 'client',
  fileId: 'file',
  sessionId: 'session',
  filename: 'fileName',
  token: 'token',
};
const BY_SEGMENT: Record<string, Kind> = {
  clients: 'client',
  'credit-configs': 'plan',
  branches: 'branch',
  credits: 'credit',
};
// no bare '..' or '%2e%2e': the client's URL parser would resolve them and send another path
const BAD_PATH_VALUES = [
  'not-a-uuid',
  '%20',
  '%00',
  '..%2F..%2Fetc%2Fpasswd',
  '...',
  "'%20OR%201=1--",
  'x'.repeat(2000),
  '123e4567-e89b-12d3-a456-42661417400g',
  '%E2%80%AE',
  '00000000-0000-0000-0000-000000000000',
];
const MALFORMED_JSON = [
  '{"a":',
  "{'dni':'1'}",
  '{',
  '[',
  'nul',
  '{"a":1,}',
  '\u00ff\u00fe',
  '{"amount": 1e309}',
  '{"a":"\\ud800"}',
  ' ',
];

function paramKind(op: Operation, p: Param): Kind | 'fileName' | 'token' | null {
  if (BY_NAME[p.name]) return BY_NAME[p.name]!;
  const segments = op.path.split('/');
  const i = segments.indexOf(`{${p.name}}`);
  return BY_SEGMENT[segments[i - 1] ?? ''] ?? null;
}

const textOf = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

class Fuzzer {
  readonly rng: Rng;
  private readonly failures = new Map<string, Failure>();
  readonly byStatus: Record<string, number> = {};
  private readonly with2xx = new Set<string>();
  requests = 0;
  valid = 0;
  invalid = 0;
  private audit: number | null = null;
  private usedKeys: { key: string; path: string; body: string }[] = [];
  private dni = 0;
  private readonly validators: ResponseValidators;
  private readonly ops: Operation[];

  private readonly doc: Document;
  private readonly server: ServerProcess;
  private readonly filesDir: string;
  private readonly me: Tenant;
  private readonly pools: Pools;
  private readonly foreign: Pools;
  private readonly timeoutMs: number;

  constructor(
    doc: Document,
    server: ServerProcess,
    filesDir: string,
    me: Tenant,
    pools: Pools,
    foreign: Pools,
    seed: number,
    timeoutMs: number,
  ) {
    this.doc = doc;
    this.server = server;
    this.filesDir = filesDir;
    this.me = me;
    this.pools = pools;
    this.foreign = foreign;
    this.timeoutMs = timeoutMs;
    this.rng = new Rng(seed);
    this.validators = new ResponseValidators(doc);
    this.ops = operations(doc);
  }

  get opCount() {
    return this.ops.length;
  }

  get opsWith2xx() {
    return this.with2xx.size;
  }

  failureList(): Failure[] {
    return [...this.failures.values()];
  }

  fail(check: Check, op: string, status: number, detail: string, req: Request | null) {
    // 5xx bodies and timeouts vary from request to request; the other details name the problem
    const key = `${check}|${op}|${status}|${check === '5xx' || check === 'no answer' ? '' : detail}`;
    const f = this.failures.get(key);
    if (f) f.count++;
    else this.failures.set(key, { check, op, status, detail, request: req ? describe(req) : '', count: 1 });
  }

  // ---- valid values that name this business's resources ----

  private hints(op: Operation): Hints {
    const rng = this.rng;
    const payment = op.path.endsWith('/payments');
    return {
      rng,
      named: (name: string, schema: Schema) => {
        switch (name) {
          case 'credit_config_id':
            return rng.pick(this.pools.plan);
          case 'branch_id':
            return rng.chance(0.8) ? rng.pick(this.pools.branch) : undefined;
          case 'client_id':
            return rng.pick(this.pools.client);
          case 'credit_id':
            return rng.pick(this.pools.credit);
          case 'record_id':
            return rng.pick([...this.pools.client, ...this.pools.credit]);
          case 'dni':
            return `${rng.digits(6)}${++this.dni}`;
          case 'amount':
            return payment ? rng.money(1, 300) : rng.money(100, 50_000);
          case 'paid_on':
            return today(-rng.int(0, 3));
          case 'start_date':
            return today(op.path.endsWith('/refinance') ? 0 : -rng.int(0, 60));
          case 'as_of':
            return today(-rng.int(0, 400));
          case 'table_name':
          case 'table':
            return rng.pick([
              'clients',
              'credits',
              'installments',
              'ledger',
              'credit_configs',
              'branches',
              'client_files',
              'upload_sessions',
              'holidays',
            ]);
          case 'installments_count':
            return rng.int(1, 12);
          case 'days_until_first_payment':
          case 'grace_days':
          case 'max_punitory_days':
          case 'write_off_days':
            return rng.int(0, 90);
          case 'name':
          case 'reason':
            return `fz ${rng.word(6)}`;
          default:
            return schema.format === 'uuid' && rng.chance(0.5)
              ? rng.pick([...this.pools.client, ...this.pools.branch])
              : undefined;
        }
      },
    };
  }

  /** Values for the path parameters that name existing, mutually consistent resources. */
  private pathValues(op: Operation, pools: Pools): Record<string, string> | null {
    const params = op.params.filter((p) => p.in === 'path');
    const kinds = params.map((p) => paramKind(op, p));
    const out: Record<string, string> = {};
    // a file or session decides its client
    const file =
      kinds.some((k) => k === 'file' || k === 'fileName') && pools.file.length ? this.rng.pick(pools.file) : null;
    const session =
      kinds.some((k) => k === 'session' || k === 'token') && pools.session.length ? this.rng.pick(pools.session) : null;
    for (const [i, p] of params.entries()) {
      const k = kinds[i];
      let v: string | undefined;
      if (k === 'file') v = file?.id;
      else if (k === 'fileName') v = file ? encodeURIComponent(file.name) : undefined;
      else if (k === 'session') v = session?.id;
      else if (k === 'token') v = session?.token;
      else if (k === 'client')
        v = file?.clientId ?? session?.clientId ?? (pools.client.length ? this.rng.pick(pools.client) : undefined);
      else if (k) v = pools[k].length ? this.rng.pick(pools[k]) : undefined;
      else v = textOf(validValue(this.doc, p.schema, this.hints(op), p.name));
      if (v === undefined) return null;
      out[p.name] = v;
    }
    return out;
  }

  // ---- one request ----

  private build(op: Operation): { req: Request; mutation: string | null; foreign: boolean } {
    const rng = this.rng;
    const h = this.hints(op);
    const mutations = this.mutationsFor(op);
    const mutation = !mutations.length || rng.chance(0.35) ? null : rng.pick(mutations);
    let foreign = false;

    // path
    let values = this.pathValues(op, this.pools) ?? {};
    const pathParams = op.params.filter((p) => p.in === 'path');
    if (mutation === 'foreign id') {
      const v = this.pathValues(op, this.foreign);
      if (v) {
        values = v;
        foreign = true;
      }
    }
    if (mutation === 'bad path param' || mutation === 'unknown id') {
      const p = rng.pick(pathParams);
      values[p.name] = mutation === 'unknown id' ? rng.uuid() : rng.pick(BAD_PATH_VALUES);
    }
    let path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? rng.uuid());

    // query
    const query: [string, string][] = [];
    for (const p of op.params.filter((q) => q.in === 'query')) {
      if (p.required || rng.chance(0.4)) query.push([p.name, textOf(validValue(this.doc, p.schema, h, p.name))]);
    }
    if (mutation === 'bad query param') {
      const p = rng.pick(op.params.filter((q) => q.in === 'query'));
      const bad = invalidValue(this.doc, p.schema, rng.pick(BAD_KINDS), rng) ?? { value: 'zz' };
      query.push([p.name, textOf(bad.value)]);
    }
    if (mutation === 'unknown query param') query.push([`zz_${rng.word(3)}`, '1']);
    if (mutation === 'repeated query param' && query.length) query.push([query[0]![0], query[0]![1]]);
    if (query.length)
      path += '?' + query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

    // headers
    const headers: Record<string, string> = op.public ? {} : bearer(this.me.full);
    if (mutation === 'no key') delete headers.authorization;
    if (mutation === 'bad key')
      headers.authorization = rng.pick([
        `Bearer lk_full_${rng.word(43)}`,
        'Bearer',
        `Basic ${Buffer.from('a:b').toString('base64')}`,
        `Bearer ${this.me.full}x`,
      ]);
    if (mutation === 'read key') headers.authorization = `Bearer ${this.me.read}`;
    if (mutation === 'key in query') {
      delete headers.authorization;
      path += `${path.includes('?') ? '&' : '?'}api_key=${this.me.full}`;
    }
    const takesKey = op.params.some((p) => p.in === 'header' && p.name === 'idempotency-key');
    if (takesKey && (rng.chance(0.5) || mutation === 'bad idempotency key')) {
      headers['idempotency-key'] =
        mutation === 'bad idempotency key'
          ? rng.pick(['', ' ', 'é', 'x'.repeat(256), 'a b', 'tab\there'])
          : `fz-${rng.word(16)}`;
    }

    // body
    let body: Request['body'];
    if (op.body?.contentType === 'application/json') {
      headers['content-type'] = 'application/json';
      const obj = validObject(this.doc, op.body.schema, h);
      let text: string | undefined = JSON.stringify(obj);
      if (mutation === 'bad field') text = JSON.stringify(this.badField(op.body.schema, obj));
      else if (mutation === 'unknown field')
        text = JSON.stringify({ ...obj, [`zz_${rng.word(4)}`]: rng.pick([1, 'x', null, {}]) });
      else if (mutation === 'missing required') text = JSON.stringify(this.withoutRequired(op.body.schema, obj));
      else if (mutation === 'missing body') {
        text = undefined;
        if (rng.chance(0.5)) delete headers['content-type'];
      } else if (mutation === 'wrong content type')
        headers['content-type'] = rng.pick([
          'text/plain',
          'application/xml',
          'application/x-www-form-urlencoded',
          'application/json; charset=latin-7',
          'multipart/form-data',
        ]);
      else if (mutation === 'malformed JSON') text = rng.pick(MALFORMED_JSON);
      else if (mutation === 'not an object')
        text = rng.pick([
          '[]',
          '"text"',
          '42',
          'true',
          '[{}]',
          ...(allowsNull(this.doc, op.body.schema) ? [] : ['null']),
        ]);
      else if (mutation === 'deep nesting') text = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
      // above the 1 MiB body limit; at 5 MB a client that writes on while the server refuses saw resets (test/http/body-limit.test.ts)
      else if (mutation === 'oversized body')
        text = JSON.stringify({ ...obj, zz: 'x'.repeat(rng.pick([1_200_000, 5_000_000])) });
      else if (mutation === 'prototype keys')
        text = rng.pick(['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}']);
      body = text;
    } else if (op.body?.contentType === 'multipart/form-data') {
      body = this.multipart(mutation, headers);
    } else if (mutation === 'unexpected body') {
      headers['content-type'] = 'application/json';
      body = JSON.stringify({ zz: 1 });
    }
    if (mutation === 'reused idempotency key' && this.usedKeys.length) {
      const used = rng.pick(this.usedKeys);
      headers['idempotency-key'] = used.key;
    }
    return { req: { method: op.method, path, headers, body }, mutation, foreign };
  }

  private mutationsFor(op: Operation): string[] {
    const m: string[] = [];
    const pathParams = op.params.filter((p) => p.in === 'path');
    if (pathParams.length) m.push('bad path param', 'unknown id');
    // another business's resource: only where the API key decides whose data it is
    if (!op.public && pathParams.some((p) => paramKind(op, p))) m.push('foreign id');
    if (op.params.some((p) => p.in === 'query'))
      m.push('bad query param', 'bad query param', 'unknown query param', 'repeated query param');
    if (!op.public) m.push('no key', 'bad key', 'key in query');
    if (!op.public && op.method !== 'GET') m.push('read key');
    if (op.params.some((p) => p.name === 'idempotency-key')) m.push('bad idempotency key', 'reused idempotency key');
    if (op.body?.contentType === 'application/json') {
      m.push(
        'bad field',
        'bad field',
        'bad field',
        'bad field',
        'unknown field',
        'missing required',
        'missing body',
        'wrong content type',
        'malformed JSON',
        'not an object',
      );
      m.push('deep nesting', 'oversized body', 'prototype keys');
    } else if (op.body?.contentType === 'multipart/form-data') {
      m.push(
        'text file',
        'empty file',
        'no file part',
        'two files',
        'truncated multipart',
        'json instead of multipart',
        'file too large',
        'hostile file name',
      );
    } else if (op.method === 'POST') m.push('unexpected body');
    return m;
  }

  private badField(schema: Schema, obj: Record<string, unknown>): Record<string, unknown> {
    const props = Object.entries((objectSchema(this.doc, schema).properties ?? {}) as Record<string, Schema>).filter(
      ([, s]) => Object.keys(s).length > 0,
    );
    if (!props.length) return { ...obj, zz: 1 };
    for (let tries = 0; tries < 10; tries++) {
      const [name, prop] = this.rng.pick(props);
      const bad = invalidValue(this.doc, prop, this.rng.pick(BAD_KINDS), this.rng);
      if (bad) return { ...obj, [name]: bad.value };
    }
    return { ...obj, zz: 1 };
  }

  private withoutRequired(schema: Schema, obj: Record<string, unknown>): Record<string, unknown> {
    const required = (objectSchema(this.doc, schema).required ?? []) as string[];
    if (!required.length) return obj;
    const out = { ...obj };
    delete out[this.rng.pick(required)];
    return out;
  }

  private multipart(mutation: string | null, headers: Record<string, string>): Request['body'] {
    const rng = this.rng;
    const form = new FormData();
    const file = (bytes: Uint8Array, type: string, name = `doc-${rng.word(4)}.png`) =>
      form.append('file', new Blob([bytes], { type }), name);
    switch (mutation) {
      case 'text file':
        file(Buffer.from('just text, not an image'), 'image/png');
        return form;
      case 'empty file':
        file(new Uint8Array(0), 'image/png');
        return form;
      case 'no file part':
        form.append('note', 'no file here');
        return form;
      case 'two files':
        file(PNG, 'image/png');
        file(PNG, 'image/png');
        return form;
      case 'file too large':
        file(Buffer.concat([PNG, Buffer.alloc(MAX_FILE_BYTES * 2)]), 'image/png');
        return form;
      case 'hostile file name':
        file(
          PNG,
          'image/png',
          rng.pick([
            '../../etc/passwd',
            '..\\..\\boot.ini',
            'a\u0000b.png',
            '.htaccess',
            'x'.repeat(600) + '.png',
            'CON',
            '%2e%2e%2fx.png',
            '\u202egnp.exe',
          ]),
        );
        return form;
      case 'truncated multipart': {
        // the boundary is declared, the part is never closed: the body just ends
        headers['content-type'] = 'multipart/form-data; boundary=fzBOUNDARY';
        return Buffer.concat([
          Buffer.from(
            '--fzBOUNDARY\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n',
          ),
          PNG.subarray(0, 30),
        ]);
      }
      case 'json instead of multipart':
        headers['content-type'] = 'application/json';
        return JSON.stringify({ file: PNG.toString('base64') });
      default:
        file(PNG, 'image/png');
        return form;
    }
  }

  // ---- checks ----

  private check(op: Operation, req: Request, res: Response, foreign: boolean) {
    const s = res.status;
    if (s === 0) return this.fail('no answer', op.id, 0, res.error ?? 'no answer', req);
    // a 5xx is a failure, except the answers docs/api.md gives for a registry the server depends on:
    // 503 not_configured (no ARCA certificate) and 502 upstream_error, where the operation declares them
    const code = (res.json as { code?: unknown } | undefined)?.code;
    const dependency = (s === 503 && code === 'not_configured') || (s === 502 && code === 'upstream_error');
    if (s >= 500 && !(dependency && declares(op, s))) this.fail('5xx', op.id, s, res.text.slice(0, 300), req);
    if (!declares(op, s)) this.fail('undeclared status', op.id, s, `${s} is not declared for ${op.id}`, req);
    if (s >= 400) {
      const body = res.json as { code?: unknown } | undefined;
      if (!body || typeof body !== 'object')
        return this.fail('error body', op.id, s, `not a JSON object: ${res.text.slice(0, 120)}`, req);
      if (!this.validators.errorCodes.includes(String(body.code)))
        return this.fail(
          'error body',
          op.id,
          s,
          `code ${JSON.stringify(body.code)} is not in the Error schema's enum`,
          req,
        );
      const problem = this.validators.checkError(body);
      if (problem) this.fail('error body', op.id, s, problem, req);
      return;
    }
    if (s >= 200 && s < 300) {
      this.with2xx.add(op.id);
      if (foreign) this.fail('cross-tenant', op.id, s, 'an id of another business was served', req);
      const declared = op.responses[String(s)];
      if (!declared) return;
      const type = res.headers.get('content-type') ?? '';
      if (declared.contentType === 'application/json') {
        if (!type.startsWith('application/json'))
          return this.fail('media type', op.id, s, `content-type ${type}, declared application/json`, req);
        const problem = declared.schema ? this.validators.check(declared.schema, res.json) : null;
        if (problem) this.fail('response schema', op.id, s, problem, req);
      } else if (
        declared.contentType &&
        declared.schema?.format !== 'binary' &&
        !type.startsWith(declared.contentType)
      ) {
        this.fail('media type', op.id, s, `content-type ${type}, declared ${declared.contentType}`, req);
      }
    }
  }

  private async auditTotal(): Promise<number> {
    const r = await send(
      this.server.url,
      { method: 'GET', path: '/api/logs?limit=1', headers: bearer(this.me.full) },
      this.timeoutMs,
    );
    const total = (r.json as { total?: number } | undefined)?.total;
    if (typeof total !== 'number') throw new Error(`GET /api/logs answered ${r.status} ${r.text.slice(0, 200)}`);
    return total;
  }

  /** Sends one request and checks it; a refused write must leave the audit log and the file store as they were. */
  async one(op: Operation) {
    const { req, mutation, foreign } = this.build(op);
    const writes = op.method !== 'GET';
    const multipart = op.body?.contentType === 'multipart/form-data';
    if (writes && this.audit === null) this.audit = await this.auditTotal();
    const filesBefore = multipart ? countFiles(this.filesDir) : 0;
    const res = await send(this.server.url, req, this.timeoutMs);
    this.requests++;
    if (mutation) this.invalid++;
    else this.valid++;
    this.byStatus[res.status || 'no answer'] = (this.byStatus[res.status || 'no answer'] ?? 0) + 1;
    this.check(op, req, res, foreign);
    if (!writes) return;
    if (res.status >= 400 && res.status < 500) {
      const after = await this.auditTotal();
      if (after !== this.audit)
        this.fail(
          'refused write wrote',
          op.id,
          res.status,
          `${after - this.audit!} audit rows added by a refused request`,
          req,
        );
      this.audit = after;
      const filesAfter = multipart ? countFiles(this.filesDir) : 0;
      if (filesAfter !== filesBefore)
        this.fail(
          'refused write wrote',
          op.id,
          res.status,
          `${filesAfter - filesBefore} files left in the store by a refused upload`,
          req,
        );
    } else {
      this.audit = null;
    }
    if (res.status >= 200 && res.status < 300) this.track(op, req, res);
  }

  /** Keeps the pools in step with what the answers created or removed. */
  private track(op: Operation, req: Request, res: Response) {
    const body = res.json as Record<string, any>;
    const segments = req.path.split('?')[0]!.split('/');
    const id = (segmentBefore: string) => segments[segments.indexOf(segmentBefore) + 1];
    const remove = <T>(list: T[], pred: (x: T) => boolean) => {
      const i = list.findIndex(pred);
      if (i >= 0) list.splice(i, 1);
    };
    const add = <T>(list: T[], v: T) => {
      list.push(v);
      if (list.length > 30) list.shift();
    };
    const key = req.headers?.['idempotency-key'];
    if (key && typeof req.body === 'string') add(this.usedKeys, { key, path: req.path, body: req.body });
    switch (op.id) {
      case 'POST /api/clients':
        return add(this.pools.client, body.id);
      case 'POST /api/credit-configs':
        return add(this.pools.plan, body.id);
      case 'POST /api/branches':
        return add(this.pools.branch, body.id);
      case 'DELETE /api/branches/{id}':
        return remove(this.pools.branch, (b) => b === body.id);
      case 'POST /api/clients/{clientId}/credits':
        return add(this.pools.credit, body.credit.id);
      case 'POST /api/credits/{id}/refinance':
        remove(this.pools.credit, (c) => c === id('credits'));
        return add(this.pools.credit, body.credit.id);
      case 'POST /api/credits/{id}/cancel':
      case 'POST /api/credits/{id}/write-off':
        return remove(this.pools.credit, (c) => c === body.id);
      case 'POST /api/clients/{id}/files':
      case 'POST /upload/{token}':
        return add(this.pools.file, { id: body.id, clientId: body.client_id, name: body.file_name });
      case 'DELETE /api/clients/{id}/files/{fileId}':
        return remove(this.pools.file, (f) => f.id === body.id);
      case 'POST /api/clients/{id}/upload-sessions':
        return add(this.pools.session, { id: body.session.id, clientId: body.session.client_id, token: body.token });
      case 'DELETE /api/clients/{id}/upload-sessions/{sessionId}':
        return remove(this.pools.session, (s) => s.id === body.id);
    }
  }

  /** Puts back a resource of each kind whose pool ran dry (deleted, cancelled, used up). */
  async replenish() {
    for (const kind of ['client', 'plan', 'branch', 'credit', 'file', 'session'] as Kind[]) {
      if (this.pools[kind].length < 2) await seedOne(this.server.url, this.me.full, this.pools, kind, this.rng);
    }
  }

  async run(count: number, log: (line: string) => void) {
    for (let i = 0; i < count; i++) {
      await this.replenish();
      await this.one(this.ops[i % this.ops.length]!);
      if ((i + 1) % 500 === 0) log(`  ${i + 1}/${count} requests, ${this.failures.size} distinct failures`);
    }
  }
}

// ---- seeding through the API ----

async function must(base: string, req: Request): Promise<any> {
  const r = await send(base, req, 30_000);
  if (r.status < 200 || r.status >= 300)
    throw new Error(`seeding: ${describe(req)} answered ${r.status || r.error} ${r.text.slice(0, 300)}`);
  return r.json;
}

async function seedOne(base: string, key: string, pools: Pools, kind: Kind, rng: Rng) {
  const post = (path: string, body: unknown) =>
    must(base, { method: 'POST', path, headers: jsonHeaders(key), body: JSON.stringify(body) });
  switch (kind) {
    case 'branch':
      pools.branch.push((await post('/api/branches', { name: `fz branch ${rng.word(4)}` })).id);
      return;
    case 'plan': {
      const monthly = rng.chance(0.5);
      const plan = await post('/api/credit-configs', {
        name: `fz plan ${rng.word(4)}`,
        installments_count: rng.int(1, 6),
        cut_type: monthly ? 'monthly' : 'fixed',
        interest_rate: 0.2,
        daily_punitory_rate: 0.002,
        grace_days: monthly ? 3 : 0,
      });
      pools.plan.push(plan.id);
      return;
    }
    case 'client':
      pools.client.push(
        (await post('/api/clients', { dni: `${rng.digits(9)}`, first_name: 'Fuzz', last_name: rng.word(5) })).id,
      );
      return;
    case 'credit': {
      if (!pools.client.length) await seedOne(base, key, pools, 'client', rng);
      // a plan of its own: the fuzzer may have deactivated the others
      await seedOne(base, key, pools, 'plan', rng);
      const c = await post(`/api/clients/${rng.pick(pools.client)}/credits`, {
        credit_config_id: pools.plan.at(-1),
        amount: 100_000,
        start_date: today(-90),
      });
      pools.credit.push(c.credit.id);
      return;
    }
    case 'file': {
      if (!pools.client.length) await seedOne(base, key, pools, 'client', rng);
      const form = new FormData();
      form.append('file', new Blob([PNG], { type: 'image/png' }), 'seed.png');
      const f = await must(base, {
        method: 'POST',
        path: `/api/clients/${rng.pick(pools.client)}/files`,
        headers: bearer(key),
        body: form,
      });
      pools.file.push({ id: f.id, clientId: f.client_id, name: f.file_name });
      return;
    }
    case 'session': {
      if (!pools.client.length) await seedOne(base, key, pools, 'client', rng);
      const s = await post(`/api/clients/${rng.pick(pools.client)}/upload-sessions`, {});
      pools.session.push({ id: s.session.id, clientId: s.session.client_id, token: s.token });
      return;
    }
  }
}

async function seed(base: string, key: string, rng: Rng, perKind: number): Promise<Pools> {
  const pools: Pools = { client: [], plan: [], branch: [], credit: [], file: [], session: [] };
  for (const kind of ['branch', 'plan', 'client', 'credit', 'file', 'session'] as Kind[]) {
    for (let i = 0; i < perKind; i++) await seedOne(base, key, pools, kind, rng);
  }
  return pools;
}

// ---- secrets in the server's log ----

/** Watches the server's output for API keys and upload tokens (a log must never hold one). */
function secretWatch(server: ServerProcess, me: Tenant, pools: Pools) {
  const seen = new Map<string, string>();
  const tokens = new Set<string>();
  let partial = '';
  // the demo's keys, printed once at the first embedded start, are the one place a key may appear
  const shownOnce = (line: string) => /^\s+(full|read): lk_|curl -H/.test(line);
  server.onOutput((text) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const s of pools.session) tokens.add(s.token);
    const secrets: [string, string][] = [
      ['API key', me.full],
      ['API key', me.read],
      ...[...tokens].map((t): [string, string] => ['upload token', t]),
    ];
    for (const line of lines) {
      const known = secrets.find(([, secret]) => line.includes(secret));
      // any other key or token too (the neighbour's, the seeds')
      const other = /lk_(full|read)_[A-Za-z0-9_-]{20,}|ul_[A-Za-z0-9_-]{43}/.exec(line);
      if (known && !seen.has(known[0])) seen.set(known[0], line.replaceAll(known[1], `<${known[0]}>`).slice(0, 300));
      else if (!known && other && !shownOnce(line) && !seen.has('a key or token'))
        seen.set('a key or token', line.replace(other[0], '<secret>').slice(0, 300));
    }
  });
  return () => [...seen.entries()];
}

// ---- the run ----

export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const log = o.log ?? (() => {});
  const timeoutMs = o.timeoutMs ?? 15_000;
  // request logs at info, so that the check for secrets sees what operators would keep
  const target = await createTarget(o.db, o.postgresUrl, { MAX_FILE_BYTES: String(MAX_FILE_BYTES), LOG_LEVEL: 'info' });
  const server = new ServerProcess(target.env);
  try {
    const started = await server.start();
    log(`[${o.db}] server ready in ${started.ms} ms at ${server.url}`);
    const [me, other] = await Promise.all([
      createTenant(target.env, 'Fuzz'),
      createTenant(target.env, 'Fuzz neighbour'),
    ]);
    const rng = new Rng(o.seed ^ 0x5eed);
    const pools = await seed(server.url, me.full, rng, 2);
    const foreign = await seed(server.url, other.full, rng, 1);
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Document;
    const fuzzer = new Fuzzer(doc, server, target.filesDir, me, pools, foreign, o.seed, timeoutMs);
    const leaks = secretWatch(server, me, pools);
    log(`[${o.db}] ${fuzzer.opCount} operations; ${o.count} requests, seed ${o.seed}`);
    await fuzzer.run(o.count, (l) => log(`[${o.db}]${l}`));
    await new Promise((r) => setTimeout(r, 300)); // the last log lines
    for (const [what, line] of leaks()) {
      fuzzer.fail('secret in log', '(server log)', 0, `${what} in a log line: ${line}`, null);
    }
    return {
      db: o.db,
      seed: o.seed,
      requests: fuzzer.requests,
      byStatus: fuzzer.byStatus,
      valid: fuzzer.valid,
      invalid: fuzzer.invalid,
      ops: fuzzer.opCount,
      opsWith2xx: fuzzer.opsWith2xx,
      startMs: started.ms,
      failures: fuzzer.failureList(),
    };
  } finally {
    await server.stop();
    await target.dispose();
  }
}

/** The failures that make the run fail: all of them, or all but undeclared statuses. */
export const blocking = (r: FuzzReport, allowUndeclared: boolean) =>
  r.failures.filter((f) => !allowUndeclared || f.check !== 'undeclared status');

export function formatFuzzReport(r: FuzzReport, allowUndeclared: boolean): string {
  const lines = [
    `fuzz on ${r.db} (seed ${r.seed}): ${r.requests} requests (${r.valid} valid, ${r.invalid} invalid) over ${r.ops} operations, ${r.opsWith2xx} of them answered 2xx at least once; server start ${r.startMs} ms`,
    `  by status: ${Object.entries(r.byStatus)
      .sort()
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}`,
  ];
  const byCheck = new Map<Check, Failure[]>();
  for (const f of r.failures) byCheck.set(f.check, [...(byCheck.get(f.check) ?? []), f]);
  if (!r.failures.length) lines.push('  no failures');
  for (const [check, fs] of byCheck) {
    const warn = allowUndeclared && check === 'undeclared status';
    lines.push(
      `  ${warn ? 'WARNING' : 'FAILURE'} ${check}: ${fs.length} distinct, ${fs.reduce((n, f) => n + f.count, 0)} requests`,
    );
    for (const f of fs) {
      lines.push(`    ${f.op} → ${f.status || '-'} ×${f.count}: ${f.detail}`);
      if (f.request) lines.push(`      e.g. ${f.request}`);
    }
  }
  return lines.join('\n');
}
