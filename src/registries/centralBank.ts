// The central bank's debtor registry (BCRA Central de Deudores, public JSON API v1.0, no
// credentials): a CUIT's current debts, their history and its rejected checks, asked side by side
// under one deadline. A 404 is "nothing on this CUIT" for that part; any other failure, an answer
// that is not JSON or not in the documented format, fails the whole verification (502).
import {
  BcraDebts,
  BcraRejectedChecks,
  type CentralBankSummary,
  centralBankSummary,
  formatProblem,
} from '../domain/verification.ts';
import { type Deadline, call, retryAfterSeconds, upstreamError } from './upstream.ts';

const WHAT = 'the central bank registry';

/** The calls, by the key their answer has in the verification's raw. */
const CALLS = {
  debts: { path: 'Deudas', schema: BcraDebts },
  history: { path: 'Deudas/Historicas', schema: BcraDebts },
  rejected_checks: { path: 'Deudas/ChequesRechazados', schema: BcraRejectedChecks },
} as const;
type Part = keyof typeof CALLS;

export interface CentralBankAnswer {
  found: boolean;
  summary: CentralBankSummary | null;
  /** each call's answer body as received (JSON, or the text when a 404 was not JSON) */
  raw: Record<Part, unknown>;
}

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The registry's own words about a failure (its errorMessages), when it gave some. */
function messages(body: unknown): string {
  const m = (body as { errorMessages?: unknown } | null)?.errorMessages;
  return Array.isArray(m) && m.length ? `: ${m.map(String).join('; ').slice(0, 300)}` : '';
}

async function ask(baseUrl: string, part: Part, cuit: string, d: Deadline, now: Date) {
  const { path, schema } = CALLS[part];
  const a = await call(
    WHAT,
    `${baseUrl}/centraldedeudores/v1.0/${path}/${cuit}`,
    { headers: { accept: 'application/json' } },
    d,
  );
  const body = parse(a.text);
  if (a.status === 404) return { found: false as const, raw: body.ok ? body.value : a.text };
  if (a.status !== 200) {
    throw upstreamError(
      `${WHAT} answered ${path} with HTTP ${a.status}${body.ok ? messages(body.value) : ''}; nothing was stored, retry later`,
      retryAfterSeconds(a.headers.get('retry-after'), now),
    );
  }
  if (!body.ok) throw upstreamError(`${WHAT} answered ${path} with something that is not JSON; nothing was stored`);
  const problem = formatProblem(schema, body.value);
  if (problem) throw upstreamError(`${WHAT} answered ${path} in an unexpected format (${problem}); nothing was stored`);
  return { found: true as const, raw: body.value };
}

/** What the registry says about the CUIT (11 digits). */
export async function askCentralBank(
  baseUrl: string,
  cuit: string,
  d: Deadline,
  now: Date,
): Promise<CentralBankAnswer> {
  const [debts, history, checks] = await Promise.all([
    ask(baseUrl, 'debts', cuit, d, now),
    ask(baseUrl, 'history', cuit, d, now),
    ask(baseUrl, 'rejected_checks', cuit, d, now),
  ]);
  const raw = { debts: debts.raw, history: history.raw, rejected_checks: checks.raw };
  const found = debts.found || history.found || checks.found;
  return {
    found,
    summary: found
      ? centralBankSummary({
          debts: debts.found ? (debts.raw as BcraDebts) : null,
          history: history.found ? (history.raw as BcraDebts) : null,
          checks: checks.found ? (checks.raw as BcraRejectedChecks) : null,
        })
      : null,
    raw,
  };
}
