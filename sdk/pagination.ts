// Paged lists (docs/api.md#pagination): a list operation wrapped by `paged` is still awaited for one
// page ({ data, error, response }, as openapi-fetch answers), and also iterated with `for await` over
// every item of every page, asking for the next page only when the previous one is used up:
// - 'offset': { items, total, limit, offset }; the next page is offset + the items received, until
//   a page is empty or total is reached;
// - 'cursor' (the audit log): the first page as asked, then ?cursor=<next_cursor> with the same
//   filters and without offset, until next_cursor is null;
// - 'after' (the event feed): ?after=<next_after> until a page is empty (or shorter than the limit
//   asked): the events up to now, oldest first. Keep the last sequence to poll again later.
// A page answered with an error status (after the client's retries) ends the iteration with a
// LendingApiError.

export type PageKind = 'offset' | 'cursor' | 'after';

type Answer = { data?: unknown; error?: unknown; response: Response };
// biome-ignore lint/suspicious/noExplicitAny: the generated operations' parameters, passed through as they are
type AnyOperation = (...init: any[]) => Promise<Answer>;
type DataOf<F extends AnyOperation> = NonNullable<Awaited<ReturnType<F>>['data']>;
/** The type of a page's items. */
export type ItemOf<F extends AnyOperation> = DataOf<F> extends { items: (infer T)[] } ? T : never;

/** A list call not sent yet: `await` it for the page asked, or iterate it for every item from there on. */
export interface Paged<F extends AnyOperation> extends PromiseLike<Awaited<ReturnType<F>>>, AsyncIterable<ItemOf<F>> {
  /** every page from the one asked, as the API answers them */
  pages(): AsyncIterableIterator<DataOf<F>>;
}

/** An answer with an error status where the SDK has to throw (an iteration over pages). */
export class LendingApiError extends Error {
  override readonly name = 'LendingApiError';
  /** the HTTP status */
  readonly status: number;
  /** the Error body (error, code, details), as the API answered it */
  readonly body: { error?: string; code?: string; details?: unknown } | undefined;
  readonly response: Response;
  constructor(
    status: number,
    body: { error?: string; code?: string; details?: unknown } | undefined,
    response: Response,
  ) {
    super(
      `${response.url ? `${new URL(response.url).pathname}: ` : ''}${status} ${body?.code ?? ''} ${body?.error ?? ''}`.trim(),
    );
    this.status = status;
    this.body = body;
    this.response = response;
  }
  get code(): string | undefined {
    return this.body?.code;
  }
}

type Init = { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;

function withQuery(init: Init | undefined, query: Record<string, unknown>): Init {
  return { ...init, params: { ...init?.params, query } };
}

async function page(op: AnyOperation, init: Init): Promise<Record<string, unknown> & { items: unknown[] }> {
  const { data, error, response } = await op(init);
  if (!response.ok || data === undefined) throw new LendingApiError(response.status, error as never, response);
  return data as never;
}

async function* pagesOf(op: AnyOperation, kind: PageKind, init: Init | undefined) {
  const query: Record<string, unknown> = { ...init?.params?.query };
  const limit = typeof query.limit === 'number' ? query.limit : undefined;
  if (kind === 'offset') {
    let offset = Number(query.offset ?? 0);
    for (;;) {
      const p = await page(op, withQuery(init, { ...query, offset }));
      yield p;
      offset += p.items.length;
      if (p.items.length === 0 || offset >= Number(p.total)) return;
    }
  }
  if (kind === 'cursor') {
    let p = await page(op, withQuery(init, query));
    for (;;) {
      yield p;
      const cursor = p.next_cursor;
      if (typeof cursor !== 'string' || p.items.length === 0) return;
      const { offset: _, ...rest } = query;
      p = await page(op, withQuery(init, { ...rest, cursor }));
    }
  }
  let after = Number(query.after ?? 0);
  for (;;) {
    const p = await page(op, withQuery(init, { ...query, after }));
    if (p.items.length === 0) return;
    yield p;
    after = Number(p.next_after);
    if (limit !== undefined && p.items.length < limit) return;
  }
}

/** The list operation `op` as a Paged call: awaited, one page; iterated, every item. */
export function paged<F extends AnyOperation>(op: F, kind: PageKind): (...init: Parameters<F>) => Paged<F> {
  return (...args) => {
    const init = args[0] as Init | undefined;
    let first: Promise<Awaited<ReturnType<F>>> | undefined;
    const pages = () => pagesOf(op, kind, init) as AsyncIterableIterator<DataOf<F>>;
    return {
      // biome-ignore lint/suspicious/noThenProperty: a Paged call is awaited like the operation itself
      then(onfulfilled, onrejected) {
        first ??= op(...args) as Promise<Awaited<ReturnType<F>>>;
        return first.then(onfulfilled, onrejected);
      },
      pages,
      async *[Symbol.asyncIterator]() {
        for await (const p of pages()) yield* (p as unknown as { items: ItemOf<F>[] }).items;
      },
    };
  };
}

/** Every item of a list operation's pages, from the page `init` asks for: `for await (const c of paginate(api.listClients))`. */
export function paginate<F extends AnyOperation>(
  op: F,
  kind: PageKind,
  ...init: Parameters<F>
): AsyncIterable<ItemOf<F>> {
  return paged(op, kind)(...init);
}
