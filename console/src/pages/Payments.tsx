// Payments that do not start at a counter: a collection network's CSV file imported (upload, the
// progress polled until every line is decided, each line's outcome, the rejected lines as a CSV
// file to fix and send again), and the collections report (payments of a period by day, method,
// channel or branch, with their totals). docs/console.md "The pages"; the API is docs/payments.md.
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { ApiError, type Page, api, newKey, qs } from '../api.ts';
import { fmtDate, fmtInstant, fmtMoney, fmtNumber, t } from '../i18n.ts';
import { useCan } from '../session.tsx';
import { Bars, Card, ErrorNote, Field, Money, Pager, Table } from '../ui.tsx';
import { useBranches } from './shared.ts';

/** The payment methods the API knows (docs/api.md "Payment channels and imports"), in its order. */
export const METHODS = ['cash', 'transfer', 'debit', 'card', 'collection_network', 'other'] as const;

interface PaymentImport {
  id: string;
  status: 'running' | 'done' | 'failed';
  lines: number;
  accepted: number;
  rejected: number;
  duplicates: number;
  created_by: string;
  created_at: string;
  finished_at: string | null;
}

interface ImportLine {
  line: number;
  credit: string;
  amount: number | null;
  status: 'pending' | 'accepted' | 'rejected' | 'duplicate';
  code: string | null;
  message: string | null;
  payment_id: string | null;
}

const EXAMPLE_CSV =
  'credit,amount,paid_on,method,channel,external_reference\n1042,45000,2026-03-20,collection_network,Rapipago,RP-000981';

/** Upload a file; the import's own page follows it. */
export function Imports() {
  const [, navigate] = useLocation();
  const canWrite = useCan('employee');
  const [file, setFile] = useState<File | null>(null);
  const [key, setKey] = useState(newKey);
  const id = useId();
  const upload = useMutation({
    mutationFn: () => {
      const form = new FormData();
      form.append('file', file as File);
      return api<PaymentImport>('/api/payment-imports', { body: form, idempotencyKey: key });
    },
    onSuccess: (d) => {
      setKey(newKey());
      navigate(`/imports/${d.id}`);
    },
  });
  return (
    <>
      <h1>{t('Payment imports')}</h1>
      <p className="muted">
        {t(
          "A collection network's file: a header row, then one payment a line. Each line is paid as a payment at the counter would be; a bad line is rejected alone and a reference already paid is not paid twice.",
        )}
      </p>
      <p>
        {t('Columns')}: <code>credit, amount, paid_on, method, channel, external_reference</code>
      </p>
      <p>{t('Example')}:</p>
      <pre className="sample">{EXAMPLE_CSV}</pre>
      {canWrite ? (
        <form
          className="grid-form boxed"
          aria-label={t('Import a file')}
          onSubmit={(e) => {
            e.preventDefault();
            if (file && !upload.isPending) upload.mutate();
          }}
        >
          <h2>{t('Import a file')}</h2>
          <div className="field">
            <label htmlFor={id}>{t('CSV file')} *</label>
            <input
              id={id}
              name="file"
              type="file"
              accept=".csv,text/csv"
              required
              onChange={(e) => setFile(e.target.files?.[0] ?? null)}
            />
          </div>
          <ErrorNote error={upload.error} />
          <div className="actions">
            <button type="submit" className="primary" disabled={!file || upload.isPending}>
              {t('Import')}
            </button>
          </div>
        </form>
      ) : (
        <p className="muted">{t('You are not allowed to do this.')}</p>
      )}
      <RecentImports />
    </>
  );
}

/** The business's imports, newest first, a page at a time by cursor (asked again every 2 s while one runs). */
function RecentImports() {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const q = useQuery({
    queryKey: ['/api/payment-imports', cursor ?? null],
    queryFn: () =>
      api<Page<PaymentImport> & { next_cursor: string | null }>(`/api/payment-imports${qs({ limit: 10, cursor })}`),
    placeholderData: keepPreviousData,
    // asked again each time the page opens: an import made or finished meanwhile shows at once
    staleTime: 0,
    refetchInterval: (r) => (r.state.data?.items.some((i) => i.status === 'running') ? 2000 : false),
  });
  return (
    <section aria-labelledby="recent-imports">
      <h2 id="recent-imports">{t('Recent imports')}</h2>
      <p className="muted">{t('Newest first')}</p>
      <ErrorNote error={q.error} />
      {/* while the first page comes, it says so (an empty table would say there are none) */}
      {!q.data && !q.error && <p aria-busy="true">{t('Loading')}…</p>}
      {q.data && (
        <Table
          caption={t('Recent imports')}
          rows={q.data.items}
          rowKey={(i) => i.id}
          columns={[
            {
              header: t('Imported'),
              cell: (i) => <Link href={`/imports/${i.id}`}>{fmtInstant(i.created_at)}</Link>,
            },
            {
              header: t('Status'),
              cell: (i) => <span className={`status s-import-${i.status}`}>{t(`import_${i.status}`)}</span>,
            },
            { header: t('Lines'), cell: (i) => fmtNumber(i.lines), numeric: true },
            { header: t('Accepted'), cell: (i) => fmtNumber(i.accepted), numeric: true },
            { header: t('Rejected'), cell: (i) => fmtNumber(i.rejected), numeric: true },
            { header: t('Duplicates'), cell: (i) => fmtNumber(i.duplicates), numeric: true },
            { header: t('Imported by'), cell: (i) => i.created_by },
          ]}
        />
      )}
      {(cursors.length > 0 || q.data?.next_cursor) && (
        <nav className="pager" aria-label={t('Recent imports')}>
          <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            ← {t('Previous')}
          </button>
          <button
            type="button"
            disabled={!q.data?.next_cursor}
            onClick={() => q.data?.next_cursor && setCursors([...cursors, q.data.next_cursor])}
          >
            {t('Older imports')} →
          </button>
        </nav>
      )}
    </section>
  );
}

const LINE_FILTERS = ['', 'accepted', 'rejected', 'duplicate'] as const;

/** One import: its progress (asked again every second while it runs), its lines, the rejected ones as CSV. */
export function ImportPage() {
  const { id } = useParams<{ id: string }>();
  const [status, setStatus] = useState<string>('');
  const [offset, setOffset] = useState(0);
  const limit = 25;
  const imp = useQuery({
    queryKey: ['import', id],
    queryFn: () => api<PaymentImport>(`/api/payment-imports/${id}`),
    refetchInterval: (q) => (q.state.data?.status === 'running' ? 1000 : false),
  });
  const running = imp.data?.status === 'running';
  const decided = imp.data ? imp.data.accepted + imp.data.rejected + imp.data.duplicates : 0;
  const lines = useQuery({
    queryKey: ['import-lines', id, status, offset, running ? decided : -1],
    queryFn: () => api<Page<ImportLine>>(`/api/payment-imports/${id}/lines${qs({ status, limit, offset })}`),
    placeholderData: keepPreviousData,
    enabled: !!imp.data,
  });
  if (imp.error) return <ErrorNote error={imp.error} />;
  if (!imp.data) return <p aria-busy="true">{t('Loading')}…</p>;
  const d = imp.data;
  return (
    <>
      <div className="page-head">
        <h1>
          {t('Import of {when}', { when: fmtInstant(d.created_at) })}{' '}
          <span className={`status s-import-${d.status}`}>{t(`import_${d.status}`)}</span>
        </h1>
        <div className="actions">
          {d.rejected > 0 && !running && <RejectedDownload importId={id} />}
          <Link href="/imports" className="button">
            {t('Import another file')}
          </Link>
        </div>
      </div>
      <div className="field progress-field">
        <label htmlFor="import-progress">
          {t('{n} of {total} lines decided', { n: fmtNumber(decided), total: fmtNumber(d.lines) })}
        </label>
        <progress id="import-progress" max={Math.max(1, d.lines)} value={decided} />
      </div>
      <div className="cards" aria-live="polite">
        <Card label={t('Lines')}>{fmtNumber(d.lines)}</Card>
        <Card label={t('Accepted')}>{fmtNumber(d.accepted)}</Card>
        <Card label={t('Rejected')}>{fmtNumber(d.rejected)}</Card>
        <Card label={t('Duplicates')}>{fmtNumber(d.duplicates)}</Card>
        <Card label={t('Finished')}>{d.finished_at ? fmtInstant(d.finished_at) : '—'}</Card>
      </div>
      <section aria-labelledby="lines">
        <h2 id="lines">{t('Lines')}</h2>
        <div className="filters">
          <Field
            label={t('Outcome')}
            name="status"
            value={status}
            onChange={(v) => {
              setStatus(v);
              setOffset(0);
            }}
            options={LINE_FILTERS.map((s) => ({ value: s, label: s ? t(`line_${s}`) : t('All lines') }))}
          />
        </div>
        <ErrorNote error={lines.error} />
        <Table
          caption={t('Lines of the file')}
          rows={lines.data?.items ?? []}
          rowKey={(l) => String(l.line)}
          columns={[
            { header: t('Line'), cell: (l) => l.line, numeric: true },
            { header: t('Credit'), cell: (l) => l.credit },
            { header: t('Amount'), cell: (l) => <Money value={l.amount} />, numeric: true },
            {
              header: t('Outcome'),
              cell: (l) => <span className={`status s-line-${l.status}`}>{t(`line_${l.status}`)}</span>,
            },
            { header: t('Message'), cell: (l) => (l.code ? `${l.code}: ${l.message ?? ''}` : '') },
          ]}
        />
        {lines.data && (
          <Pager
            offset={offset}
            limit={limit}
            total={lines.data.total}
            count={lines.data.items.length}
            onChange={setOffset}
          />
        )}
      </section>
    </>
  );
}

/** A CSV field, quoted when it must be (RFC 4180). */
const csvField = (v: string | number | null) => {
  const s = v == null ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/** Every rejected line (paged from the API, 100 at a time) as a CSV file saved by the browser. */
function RejectedDownload({ importId }: { importId: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            const rows: ImportLine[] = [];
            for (let offset = 0; ; offset += 100) {
              const page = await api<Page<ImportLine>>(
                `/api/payment-imports/${importId}/lines${qs({ status: 'rejected', limit: 100, offset })}`,
              );
              rows.push(...page.items);
              if (page.items.length === 0 || rows.length >= page.total) break;
            }
            const text = [
              'line,credit,amount,code,message',
              ...rows.map((l) => [l.line, l.credit, l.amount, l.code, l.message].map(csvField).join(',')),
            ].join('\r\n');
            const url = URL.createObjectURL(new Blob([`${text}\r\n`], { type: 'text/csv' }));
            const a = document.createElement('a');
            a.href = url;
            a.download = `rechazados-${importId.slice(0, 8)}.csv`;
            document.body.append(a);
            a.click();
            a.remove();
            setTimeout(() => URL.revokeObjectURL(url), 60_000);
          } catch (e) {
            setError(e);
          } finally {
            setBusy(false);
          }
        }}
      >
        {t('Download rejected lines')} (CSV)
      </button>
      <ErrorNote error={error} />
    </>
  );
}

interface CollectionFigures {
  payments: number;
  amount: number;
  reversed_payments: number;
  reversed_amount: number;
}

interface CollectionsReportAnswer {
  from: string;
  to: string;
  group_by: 'day' | 'method' | 'channel' | 'branch';
  rows: (CollectionFigures & { key: string | null })[];
  totals: CollectionFigures;
}

/** The payments dated in a period, grouped as chosen, and their totals. */
export function CollectionsReport() {
  const branches = useBranches();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [groupBy, setGroupBy] = useState('day');
  const params = { from, to, group_by: groupBy };
  const q = useQuery({
    queryKey: ['/api/reports/collections', params],
    queryFn: () => api<CollectionsReportAnswer>(`/api/reports/collections${qs(params)}`),
    placeholderData: keepPreviousData,
  });
  const d = q.data;
  const label = (key: string | null): string => {
    if (!d) return '';
    if (d.group_by === 'day') return key ? fmtDate(key) : '—';
    if (d.group_by === 'method') return key ? t(`method_${key}`) : '—';
    if (d.group_by === 'channel') return key ?? t('No channel');
    return key ? (branches.find((b) => b.id === key)?.name ?? key) : t('No branch');
  };
  const keyHeader = { day: t('Date'), method: t('Method'), channel: t('Channel'), branch: t('Branch') }[
    d?.group_by ?? 'day'
  ];
  return (
    <>
      <h1>{t('Collections report')}</h1>
      <div className="filters">
        <Field
          label={t('From')}
          name="from"
          type="date"
          value={from || d?.from || ''}
          onChange={setFrom}
          error={q.error instanceof ApiError ? q.error : null}
        />
        <Field label={t('To')} name="to" type="date" value={to || d?.to || ''} onChange={setTo} />
        <Field
          label={t('Group by')}
          name="group_by"
          value={groupBy}
          onChange={setGroupBy}
          options={[
            { value: 'day', label: t('Day') },
            { value: 'method', label: t('Method') },
            { value: 'channel', label: t('Channel') },
            { value: 'branch', label: t('Branch') },
          ]}
        />
      </div>
      <ErrorNote error={q.error} />
      {d && (
        <div aria-busy={q.isFetching}>
          <p>{t('Payments dated from {from} to {to}', { from: fmtDate(d.from), to: fmtDate(d.to) })}</p>
          <div className="cards">
            <Card label={t('Payments')}>{fmtNumber(d.totals.payments)}</Card>
            <Card label={t('Collected')}>
              <Money value={d.totals.amount} />
            </Card>
            <Card label={t('Reversed payments')}>{fmtNumber(d.totals.reversed_payments)}</Card>
            <Card label={t('Reversed amount')}>
              <Money value={d.totals.reversed_amount} />
            </Card>
            <Card label={t('Net of reversals')}>
              <Money value={Math.round((d.totals.amount - d.totals.reversed_amount) * 100) / 100} />
            </Card>
          </div>
          <Table
            caption={t('Collections by {what}', { what: keyHeader.toLowerCase() })}
            rows={d.rows}
            rowKey={(r) => r.key ?? '-'}
            columns={[
              { header: keyHeader, cell: (r) => label(r.key) },
              { header: t('Payments'), cell: (r) => fmtNumber(r.payments), numeric: true },
              { header: t('Collected'), cell: (r) => <Money value={r.amount} />, numeric: true },
              { header: t('Reversed payments'), cell: (r) => fmtNumber(r.reversed_payments), numeric: true },
              { header: t('Reversed amount'), cell: (r) => <Money value={r.reversed_amount} />, numeric: true },
            ]}
          />
          {d.rows.length > 1 && d.rows.length <= 40 && (
            <Bars
              caption={t('Collected')}
              rows={d.rows.map((r) => ({ label: label(r.key), value: r.amount }))}
              format={fmtMoney}
            />
          )}
        </div>
      )}
    </>
  );
}
