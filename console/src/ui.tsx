// The console's building blocks: a labelled field with its error from the API's `details`, a
// table, a server-paged list, a confirmation dialog, money, a bar chart. A page is mostly these.
import { useQuery, keepPreviousData } from '@tanstack/react-query';
import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { ApiError, type Page, api, qs } from './api.ts';
import { fmtMoney, t, tApi } from './i18n.ts';

export function Money({ value }: { value: number | string | null | undefined }) {
  return <span className="money">{fmtMoney(value)}</span>;
}

/** What went wrong, in words for a person. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 0) return t('The service did not answer; try again.');
    // a refusal the console knows is said in the person's language, with the API's figures
    const said = tApi(e.message);
    if (said !== e.message) return said;
    if (e.status === 403 && e.code === 'forbidden') return `${t('You are not allowed to do this.')} (${e.message})`;
    return e.message;
  }
  return String(e);
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {errorText(error)}
    </p>
  );
}

interface FieldProps {
  label: string;
  name: string;
  value: string;
  onChange: (v: string) => void;
  error?: ApiError | null | undefined;
  type?: string;
  required?: boolean;
  hint?: string;
  options?: { value: string; label: string }[];
  autoComplete?: string;
  inputMode?: 'numeric' | 'decimal' | 'text' | 'email' | 'search';
  step?: string;
  min?: string;
  multiline?: boolean;
}

/** A labelled input (or select) whose error line is the API's message about that body field. */
export function Field(p: FieldProps) {
  const id = useId();
  const raw = p.error?.fieldError(p.name);
  const err = raw === undefined ? undefined : tApi(raw);
  const described = [p.hint ? `${id}-hint` : '', err ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: p.name,
    value: p.value,
    required: p.required,
    'aria-invalid': err ? true : undefined,
    'aria-describedby': described,
  };
  return (
    <div className={`field${err ? ' invalid' : ''}`}>
      <label htmlFor={id}>
        {p.label}
        {p.required ? ' *' : ''}
      </label>
      {p.options ? (
        <select {...common} onChange={(e) => p.onChange(e.target.value)}>
          {p.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      ) : p.multiline ? (
        <textarea {...common} onChange={(e) => p.onChange(e.target.value)} />
      ) : (
        <input
          {...common}
          type={p.type ?? 'text'}
          autoComplete={p.autoComplete}
          inputMode={p.inputMode}
          step={p.step}
          min={p.min}
          onChange={(e) => p.onChange(e.target.value)}
        />
      )}
      {p.hint && (
        <small id={`${id}-hint`} className="hint">
          {p.hint}
        </small>
      )}
      {err && (
        <small id={`${id}-err`} className="field-error">
          {err}
        </small>
      )}
    </div>
  );
}

/** A form's values as strings, and a setter per field. */
export function useValues<T extends Record<string, string>>(initial: T) {
  const [values, setValues] = useState<T>(initial);
  const bind = (name: keyof T & string) => ({
    name,
    value: values[name],
    onChange: (v: string) => setValues((s) => ({ ...s, [name]: v })),
  });
  return { values, setValues, bind };
}

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** numbers align right */
  numeric?: boolean;
}

export function Table<T>({
  columns,
  rows,
  caption,
  rowKey,
}: {
  columns: Column<T>[];
  rows: T[];
  caption?: string;
  rowKey: (row: T) => string;
}) {
  // an empty table says what it would list when it has a caption (two on one page are told apart)
  if (rows.length === 0)
    return <p className="empty">{caption ? t('{what}: none yet.', { what: caption }) : t('Nothing here yet.')}</p>;
  // a table wider than a phone scrolls sideways: keyboard users reach it with Tab and scroll it with the arrows
  const focusable = { tabIndex: 0 };
  return (
    <section className="table-wrap" {...focusable} aria-label={caption ?? columns.map((c) => c.header).join(', ')}>
      <table>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" className={c.numeric ? 'num' : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={rowKey(r)}>
              {columns.map((c) => (
                <td key={c.header} className={c.numeric ? 'num' : undefined} data-label={c.header}>
                  {c.cell(r)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** A list the server pages (`limit`/`offset`): one page in memory, previous and next. */
export function ServerTable<T extends { id: string }>({
  path,
  params = {},
  columns,
  caption,
  limit = 25,
}: {
  path: string;
  params?: Record<string, string | number | boolean | undefined>;
  columns: Column<T>[];
  caption?: string;
  limit?: number;
}) {
  const [offset, setOffset] = useState(0);
  const key = JSON.stringify(params);
  // a new filter starts at the first page
  // biome-ignore lint/correctness/useExhaustiveDependencies: key stands for params
  useEffect(() => setOffset(0), [key]);
  const q = useQuery({
    queryKey: [path, params, offset, limit],
    queryFn: () => api<Page<T>>(path + qs({ ...params, limit, offset })),
    placeholderData: keepPreviousData,
  });
  if (q.error) return <ErrorNote error={q.error} />;
  if (!q.data) return <p aria-busy="true">{t('Loading')}…</p>;
  const { items, total } = q.data;
  return (
    <div aria-busy={q.isFetching}>
      <Table columns={columns} rows={items} caption={caption} rowKey={(r) => r.id} />
      <Pager offset={offset} limit={limit} total={total} count={items.length} onChange={setOffset} />
    </div>
  );
}

export function Pager(p: {
  offset: number;
  limit: number;
  total: number;
  count: number;
  onChange: (o: number) => void;
}) {
  if (p.total <= p.limit && p.offset === 0) return null;
  return (
    <nav className="pager" aria-label={t('Pages')}>
      <button type="button" disabled={p.offset === 0} onClick={() => p.onChange(Math.max(0, p.offset - p.limit))}>
        ← {t('Previous')}
      </button>
      <span>{t('{from}–{to} of {total}', { from: p.offset + 1, to: p.offset + p.count, total: p.total })}</span>
      <button type="button" disabled={p.offset + p.limit >= p.total} onClick={() => p.onChange(p.offset + p.limit)}>
        {t('Next')} →
      </button>
    </nav>
  );
}

/**
 * A button that asks first: a modal dialog saying what will happen, an optional reason, then the
 * action. Keyboard: Enter confirms, Escape closes.
 */
export function ConfirmButton({
  label,
  title,
  text,
  reason,
  onConfirm,
  danger,
  children,
}: {
  label: string;
  title?: string;
  text: string;
  /** ask for a reason (sent to onConfirm) */
  reason?: boolean;
  onConfirm: (reason: string) => Promise<unknown>;
  danger?: boolean;
  children?: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [why, setWhy] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const close = () => {
    ref.current?.close();
    setError(null);
    setWhy('');
  };
  return (
    <>
      <button type="button" className={danger ? 'danger' : undefined} onClick={() => ref.current?.showModal()}>
        {label}
      </button>
      <dialog ref={ref} aria-labelledby={`${id}-t`} onClose={() => setError(null)}>
        <form
          method="dialog"
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            try {
              await onConfirm(why);
              close();
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          <h2 id={`${id}-t`}>{title ?? label}</h2>
          <p>{text}</p>
          {children}
          {reason && (
            <Field label={t('Reason')} name="reason" value={why} onChange={setWhy} required error={error as ApiError} />
          )}
          <ErrorNote error={error} />
          <div className="actions">
            <button type="submit" className={danger ? 'danger' : 'primary'} disabled={busy}>
              {t('Confirm')}
            </button>
            <button type="button" onClick={close}>
              {t('Cancel')}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

/** Keeps Tab and Shift+Tab inside a modal dialog: from its last control to its first and back. */
export function trapFocus(e: KeyboardEvent<HTMLDialogElement>) {
  if (e.key !== 'Tab') return;
  const all = [
    ...e.currentTarget.querySelectorAll<HTMLElement>('input, select, textarea, button, a[href], [tabindex]'),
  ].filter((el) => !el.hasAttribute('disabled') && el.tabIndex >= 0);
  const first = all[0];
  const last = all[all.length - 1];
  if (!first || !last) return;
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

/** The signed-in person's own password, masked and labelled; the API's `details` about `current_password` under it. */
export function PasswordField(p: { value: string; onChange: (v: string) => void; error: ApiError | null }) {
  const id = useId();
  const err = p.error instanceof ApiError ? p.error.fieldError('current_password') : undefined;
  return (
    <div className={`field${err ? ' invalid' : ''}`}>
      <label htmlFor={id}>{t('Your password')} *</label>
      <input
        id={id}
        name="current_password"
        type="password"
        autoComplete="current-password"
        required
        value={p.value}
        aria-invalid={err ? true : undefined}
        aria-describedby={err ? `${id}-err` : undefined}
        onChange={(e) => p.onChange(e.target.value)}
      />
      {err && (
        <small id={`${id}-err`} className="field-error">
          {err}
        </small>
      )}
    </div>
  );
}

/** A horizontal bar chart drawn as a table: each row's label, its bar and its figure (readable without the bars). */
export function Bars({
  caption,
  rows,
  format,
}: {
  caption: string;
  rows: { label: string; value: number; note?: string }[];
  format: (v: number) => string;
}) {
  const max = Math.max(1e-9, ...rows.map((r) => Math.abs(r.value)));
  return (
    <table className="bars">
      <caption>{caption}</caption>
      <tbody>
        {rows.map((r, i) => (
          <tr key={r.label}>
            <th scope="row">{r.label}</th>
            <td className="bar-cell">
              <span className={`bar c${i % 5}`} style={{ width: `${(100 * Math.abs(r.value)) / max}%` }} />
            </td>
            <td className="num">
              {format(r.value)}
              {r.note ? <small> {r.note}</small> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Card({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="card">
      <div className="card-label">{label}</div>
      <div className="card-value">{children}</div>
    </div>
  );
}

/** A status in words; a credit's in the masculine (*anulado*), a promise's or an application's in the feminine. */
export function Status({ value, of }: { value: string; of?: 'credit' }) {
  return (
    <span className={`status s-${value}`}>
      {t(of === 'credit' && value === 'cancelled' ? 'credit_cancelled' : value)}
    </span>
  );
}

export interface FormField {
  name: string;
  label: string;
  type?: string;
  required?: boolean;
  options?: { value: string; label: string }[];
  initial?: string;
  hint?: string;
}

/**
 * A form from a list of fields: each labelled, each with its error from the API's `details`;
 * `submit` gets the values as strings. Adding a field is one entry.
 */
export function QuickForm({
  fields,
  submit,
  submitLabel,
  title,
}: {
  fields: FormField[];
  submit: (v: Record<string, string>) => Promise<unknown>;
  submitLabel: string;
  title?: string;
}) {
  const initial = () => Object.fromEntries(fields.map((f) => [f.name, f.initial ?? f.options?.[0]?.value ?? '']));
  const [values, setValues] = useState<Record<string, string>>(initial);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="grid-form boxed"
      aria-label={title ?? submitLabel}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          await submit(values);
          setValues(initial());
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      {title && <h2>{title}</h2>}
      {fields.map((f) => (
        <Field
          key={f.name}
          label={f.label}
          name={f.name}
          type={f.type}
          required={f.required}
          options={f.options}
          hint={f.hint}
          value={values[f.name] ?? ''}
          onChange={(v) => setValues((s) => ({ ...s, [f.name]: v }))}
          error={error instanceof ApiError ? error : null}
        />
      ))}
      <ErrorNote error={error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

/** A secret the API shows once (an API key, a set-password link, a signing secret), with a copy button. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="status">
      <p>{label}</p>
      <code>{value}</code>{' '}
      <button
        type="button"
        onClick={async () => {
          await navigator.clipboard?.writeText(value);
          setCopied(true);
        }}
      >
        {copied ? t('Copied') : t('Copy')}
      </button>
    </div>
  );
}
