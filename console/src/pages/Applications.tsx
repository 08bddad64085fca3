// Credit applications (docs/applications.md): the inbox by status, submitting one for a client,
// its policy checks with their figures, and the maker-checker steps: approve (a note when a check
// failed), reject, withdraw, disburse into a credit. The API decides who may; its refusals
// (deciding one's own application, an amount over the employee's limit) are shown in words.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { ApiError, type Page, api, newKey, qs } from '../api.ts';
import { FormDialog } from '../dialog.tsx';
import { fmtDate, fmtInstant, fmtMoney, t } from '../i18n.ts';
import { useCan, useMe } from '../session.tsx';
import { ConfirmButton, ErrorNote, Field, Money, ServerTable, Status, Table } from '../ui.tsx';
import { type Client, clientName } from './Clients.tsx';
import { useBranches, usePlans } from './shared.ts';

interface Check {
  rule: string;
  outcome: 'pass' | 'fail' | 'unknown';
  detail: string;
}

export interface Application {
  id: string;
  client_id: string;
  credit_config_id: string;
  amount: number;
  branch_id: string | null;
  start_date: string | null;
  note: string | null;
  status: string;
  checks: Check[];
  submitted_by: string;
  decided_by: string | null;
  decision_note: string | null;
  credit_id: string | null;
  disbursement_method: string | null;
  disbursement_reference: string | null;
  created_at: string;
  decided_at: string | null;
  disbursed_at: string | null;
}

const STATUSES = ['submitted', 'approved', 'rejected', 'withdrawn', 'disbursed'];

/** A check's detail in the person's language, its figures formatted (the API writes it in English). */
export function checkDetail(detail: string): string {
  let m = /^worst situation (\d+) \(at most (\d+)\) per the central bank on (\S+)$/.exec(detail);
  if (m)
    return t('Worst situation {worst} (at most {max}), central bank on {when}', {
      worst: m[1]!,
      max: m[2]!,
      when: fmtInstant(m[3]),
    });
  m = /^total debt ([\d.]+) \(at most ([\d.]+)\) per the central bank on (\S+)$/.exec(detail);
  if (m)
    return t('Total debt {debt} (at most {max}), central bank on {when}', {
      debt: fmtMoney(m[1]),
      max: fmtMoney(m[2]),
      when: fmtInstant(m[3]),
    });
  if (/^no central bank verification/.test(detail))
    return t('No recent central bank lookup of the client: look it up, then submit again.');
  if (/^no tax authority verification/.test(detail))
    return t('No recent tax authority lookup of the client: look it up, then submit again.');
  m = /^the CUIT is not in the tax authority's register \((\S+)\)$/.exec(detail);
  if (m) return t("The CUIT is not in the tax authority's register ({when})", { when: fmtInstant(m[1]) });
  m = /^the CUIT is (.+) in the tax authority's register \((\S+)\)$/.exec(detail);
  if (m)
    return t("The CUIT is {status} in the tax authority's register ({when})", {
      status: m[1]!,
      when: fmtInstant(m[2]),
    });
  return detail;
}

/** The client's name, read once and cached (the client page's own query). */
function ClientName({ id }: { id: string }) {
  const q = useQuery({
    queryKey: ['client', id],
    queryFn: () => api<{ client: Client }>(`/api/clients/${id}`),
    staleTime: 60_000,
  });
  return <Link href={`/clients/${id}`}>{q.data ? clientName(q.data.client) : t('Client')}</Link>;
}

/** Who did it: "vos" for the signed-in user, else the actor as the API names it. */
function useActor() {
  const me = useMe().data;
  return (actor: string | null) => (actor === null ? '—' : actor === `user:${me?.user?.id}` ? t('you') : actor);
}

const ChecksSummary = ({ checks }: { checks: Check[] }) =>
  checks.length === 0 ? (
    <span className="muted">—</span>
  ) : (
    <span className="actions">
      {checks.map((c) => (
        <span key={c.rule} className={`status s-${c.outcome}`} title={t(c.rule)}>
          {t(c.rule)}: {t(c.outcome)}
        </span>
      ))}
    </span>
  );

export function Applications() {
  const canWrite = useCan('employee');
  const plans = usePlans();
  const [status, setStatus] = useState('submitted');
  const planName = (id: string) => plans.find((p) => p.id === id)?.name ?? '—';
  return (
    <>
      <div className="page-head">
        <h1>{t('Applications')}</h1>
        {canWrite && (
          <Link href="/applications/new" className="button primary">
            {t('New application')}
          </Link>
        )}
      </div>
      <div className="filters">
        <Field
          label={t('Status')}
          name="status"
          value={status}
          onChange={setStatus}
          options={[{ value: '', label: t('All statuses') }, ...STATUSES.map((s) => ({ value: s, label: t(s) }))]}
        />
      </div>
      <ServerTable<Application>
        path="/api/applications"
        params={{ status }}
        caption={t('Applications')}
        columns={[
          {
            header: t('Submitted'),
            cell: (a) => <Link href={`/applications/${a.id}`}>{fmtInstant(a.created_at)}</Link>,
          },
          { header: t('Client'), cell: (a) => <ClientName id={a.client_id} /> },
          { header: t('Plan'), cell: (a) => planName(a.credit_config_id) },
          { header: t('Amount'), cell: (a) => <Money value={a.amount} />, numeric: true },
          { header: t('Policy checks'), cell: (a) => <ChecksSummary checks={a.checks} /> },
          { header: t('Status'), cell: (a) => <Status value={a.status} /> },
        ]}
      />
    </>
  );
}

/** Clients found as you type (DNI, CUIT, name), to choose one. */
export function ClientPicker({
  value,
  onChange,
  anyLabel,
}: {
  value: string;
  onChange: (id: string) => void;
  /** offered first and chosen until the person picks a client (a filter); without it the first match is chosen */
  anyLabel?: string;
}) {
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    const h = setTimeout(() => setQ(text.trim()), 250);
    return () => clearTimeout(h);
  }, [text]);
  const found = useQuery({
    queryKey: ['/api/clients', { q }, 0, 10],
    enabled: q.length > 0,
    queryFn: () => api<Page<Client>>(`/api/clients${qs({ q, limit: 10 })}`),
  });
  const items = found.data?.items ?? [];
  // the first match is chosen until the person picks another
  useEffect(() => {
    if (anyLabel === undefined && items[0] && !items.some((c) => c.id === value)) onChange(items[0].id);
  }, [items, value, onChange, anyLabel]);
  const matches = items.map((c) => ({ value: c.id, label: `${clientName(c)} · DNI ${c.dni}` }));
  return (
    <>
      <Field
        label={t('Find the client')}
        name="client_search"
        type="search"
        inputMode="search"
        hint={anyLabel === undefined ? t('DNI, CUIT, name or email') : undefined}
        value={text}
        onChange={setText}
      />
      <Field
        label={t('Client')}
        name="client_id"
        required={anyLabel === undefined}
        value={value}
        onChange={onChange}
        options={
          anyLabel !== undefined
            ? [{ value: '', label: anyLabel }, ...matches]
            : matches.length > 0
              ? matches
              : [{ value: '', label: q ? t('No client matches.') : t('Type to search') }]
        }
      />
    </>
  );
}

export function ApplicationNew() {
  const search = new URLSearchParams(useSearch());
  const fixedClient = search.get('client');
  const [, navigate] = useLocation();
  const qc = useQueryClient();
  const plans = usePlans().filter((p) => p.is_active);
  const branches = useBranches().filter((b) => !b.deleted_at);
  const [client, setClient] = useState(fixedClient ?? '');
  const [plan, setPlan] = useState('');
  const [amount, setAmount] = useState('');
  const [start, setStart] = useState('');
  const [branch, setBranch] = useState('');
  const [note, setNote] = useState('');
  const [key] = useState(newKey);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!plan && plans[0]) setPlan(plans[0].id);
  }, [plan, plans]);
  const apiError = error instanceof ApiError ? error : null;
  return (
    <>
      <h1>{t('New application')}</h1>
      <form
        className="grid-form"
        aria-label={t('New application')}
        onSubmit={async (e) => {
          e.preventDefault();
          if (busy || !client) return;
          setBusy(true);
          setError(null);
          try {
            const a = await api<Application>(`/api/clients/${client}/applications`, {
              idempotencyKey: key,
              body: {
                credit_config_id: plan,
                amount: Number(amount),
                ...(start ? { start_date: start } : {}),
                ...(branch ? { branch_id: branch } : {}),
                ...(note.trim() ? { note: note.trim() } : {}),
              },
            });
            await qc.invalidateQueries({ queryKey: ['/api/applications'] });
            navigate(`/applications/${a.id}`);
          } catch (err) {
            setError(err);
            setBusy(false);
          }
        }}
      >
        {fixedClient ? (
          <p>
            {t('Client')}: <ClientName id={fixedClient} />
          </p>
        ) : (
          <ClientPicker value={client} onChange={setClient} />
        )}
        <Field
          label={t('Plan')}
          name="credit_config_id"
          value={plan}
          onChange={setPlan}
          required
          options={plans.map((p) => ({ value: p.id, label: p.name }))}
          error={apiError}
        />
        <Field
          label={t('Amount')}
          name="amount"
          type="number"
          inputMode="decimal"
          step="0.01"
          min="0"
          value={amount}
          onChange={setAmount}
          required
          error={apiError}
        />
        <Field
          label={t('Start date')}
          name="start_date"
          type="date"
          value={start}
          onChange={setStart}
          error={apiError}
        />
        <Field
          label={t('Branch')}
          name="branch_id"
          value={branch}
          onChange={setBranch}
          options={[{ value: '', label: '—' }, ...branches.map((b) => ({ value: b.id, label: b.name }))]}
          error={apiError}
        />
        <Field label={t('Note')} name="note" value={note} onChange={setNote} multiline error={apiError} />
        <ErrorNote error={error} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy || !client}>
            {t('Submit')}
          </button>
        </div>
      </form>
    </>
  );
}

type Open = 'approve' | 'reject' | 'disburse' | null;

export function ApplicationPage() {
  const { id } = useParams<{ id: string }>();
  const qc = useQueryClient();
  const canWrite = useCan('employee');
  const actor = useActor();
  const plans = usePlans();
  const branches = useBranches();
  const [open, setOpen] = useState<Open>(null);
  const [note, setNote] = useState('');
  const [method, setMethod] = useState('transfer');
  const [reference, setReference] = useState('');
  const [key, setKey] = useState(newKey);
  const q = useQuery({ queryKey: ['application', id], queryFn: () => api<Application>(`/api/applications/${id}`) });
  if (q.error) return <ErrorNote error={q.error} />;
  if (!q.data) return <p aria-busy="true">{t('Loading')}…</p>;
  const a = q.data;
  const failed = a.checks.some((c) => c.outcome === 'fail');
  const done = async () => {
    setOpen(null);
    setNote('');
    setKey(newKey());
    await Promise.all([
      qc.invalidateQueries({ queryKey: ['application', id] }),
      qc.invalidateQueries({ queryKey: ['/api/applications'] }),
    ]);
  };
  const step = (path: string, body: unknown) =>
    api<Application>(`/api/applications/${id}/${path}`, { body, idempotencyKey: key }).then(done);
  const facts: [string, ReactNode][] = [
    [t('Client'), <ClientName key="c" id={a.client_id} />],
    [t('Plan'), plans.find((p) => p.id === a.credit_config_id)?.name ?? '—'],
    [t('Amount'), <Money key="m" value={a.amount} />],
    [t('Branch'), branches.find((b) => b.id === a.branch_id)?.name ?? '—'],
    [t('Start date'), fmtDate(a.start_date)],
    [t('Submitted'), fmtInstant(a.created_at)],
    [t('Submitted by'), actor(a.submitted_by)],
    [t('Note'), a.note ?? '—'],
    [t('Decided'), fmtInstant(a.decided_at)],
    [t('Decided by'), actor(a.decided_by)],
    [t('Decision note'), a.decision_note ?? '—'],
  ];
  if (a.disbursed_at)
    facts.push(
      [t('Disbursed'), fmtInstant(a.disbursed_at)],
      [t('Method'), a.disbursement_method ? t(a.disbursement_method) : '—'],
      [t('External reference'), a.disbursement_reference ?? '—'],
    );
  return (
    <>
      <div className="page-head">
        <h1>
          {t('Application')} <Status value={a.status} />
        </h1>
        <div className="actions">
          {a.credit_id && (
            <Link href={`/credits/${a.credit_id}`} className="button primary">
              {t('Go to the credit')}
            </Link>
          )}
          {canWrite && a.status === 'submitted' && (
            <>
              <button type="button" className="primary" onClick={() => setOpen('approve')}>
                {t('Approve')}
              </button>
              <button type="button" className="danger" onClick={() => setOpen('reject')}>
                {t('Reject')}
              </button>
              <ConfirmButton
                label={t('Withdraw')}
                title={t('Withdraw this application')}
                text={t('The application is closed as withdrawn; nothing is granted.')}
                onConfirm={() => step('withdraw', undefined)}
              />
            </>
          )}
          {canWrite && a.status === 'approved' && (
            <button type="button" className="primary" onClick={() => setOpen('disburse')}>
              {t('Disburse')}
            </button>
          )}
        </div>
      </div>
      <dl className="facts">
        {facts.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <section aria-labelledby="checks">
        <h2 id="checks">{t('Policy checks')}</h2>
        {a.checks.length === 0 ? (
          <p className="muted">{t('The plan has no policy: nothing to check.')}</p>
        ) : (
          <Table
            rows={a.checks}
            rowKey={(c) => c.rule}
            caption={t('Policy checks')}
            columns={[
              { header: t('Rule'), cell: (c) => t(c.rule) },
              { header: t('Outcome'), cell: (c) => <Status value={c.outcome} /> },
              { header: t('Detail'), cell: (c) => checkDetail(c.detail) },
            ]}
          />
        )}
      </section>
      {open === 'approve' && (
        <FormDialog
          title={t('Approve this application')}
          text={
            failed
              ? t('It failed a check: say why you approve it anyway.')
              : t('Another person than who submitted it approves it; then it can be disbursed.')
          }
          submitLabel={t('Approve')}
          onCancel={() => setOpen(null)}
          onSubmit={() => step('approve', note.trim() ? { note: note.trim() } : {})}
        >
          {(error) => (
            <Field
              label={t('Note')}
              name="note"
              value={note}
              onChange={setNote}
              multiline
              required={failed}
              error={error}
            />
          )}
        </FormDialog>
      )}
      {open === 'reject' && (
        <FormDialog
          title={t('Reject this application')}
          text={t('The application is closed as rejected, with your reason.')}
          submitLabel={t('Reject')}
          onCancel={() => setOpen(null)}
          onSubmit={() => step('reject', { reason: note })}
        >
          {(error) => (
            <Field label={t('Reason')} name="reason" value={note} onChange={setNote} multiline required error={error} />
          )}
        </FormDialog>
      )}
      {open === 'disburse' && (
        <FormDialog
          title={t('Disburse this application')}
          text={t(
            "The credit is granted with the application's plan and amount, and the money handed over as you say.",
          )}
          submitLabel={t('Disburse')}
          onCancel={() => setOpen(null)}
          onSubmit={async () => {
            await api(`/api/applications/${id}/disburse`, {
              idempotencyKey: key,
              body: { method, ...(reference.trim() ? { external_reference: reference.trim() } : {}) },
            });
            await qc.invalidateQueries({ queryKey: ['client', a.client_id] });
            await done();
          }}
        >
          {(error) => (
            <>
              <Field
                label={t('Method')}
                name="method"
                value={method}
                onChange={setMethod}
                required
                options={['transfer', 'cash', 'check', 'other'].map((m) => ({ value: m, label: t(m) }))}
                error={error}
              />
              <Field
                label={t('External reference')}
                name="external_reference"
                value={reference}
                onChange={setReference}
                error={error}
              />
            </>
          )}
        </FormDialog>
      )}
    </>
  );
}
