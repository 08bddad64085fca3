// Clients: the search (as you type, paged by the server), the form to create or edit one, and a
// client's page: data, verifications, files, upload links and credits.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { ApiError, api } from '../api.ts';
import { fmtDate, fmtInstant, fmtMoney, fmtNumber, t } from '../i18n.ts';
import { useCan } from '../session.tsx';
import { ConfirmButton, ErrorNote, Field, Money, ServerTable, Status, Table, useValues } from '../ui.tsx';
import { type Guarantee, GuaranteesSection } from './Guarantors.tsx';

export interface Client {
  id: string;
  first_name: string | null;
  last_name: string | null;
  dni: string;
  cuit: string | null;
  email: string | null;
  phone: string | null;
  street: string | null;
  street_number: string | null;
  city: string | null;
  state: string | null;
  zip_code: string | null;
  created_at: string;
}

export interface Credit {
  id: string;
  client_id: string;
  sequential_id: number;
  amount: number;
  total: number;
  status: string;
  start_date: string;
  credit_config_id: string;
  branch_id: string | null;
}

interface ClientFile {
  id: string;
  file_name: string;
  file_url: string;
  file_type: string;
  file_size: number;
  created_at: string;
}

interface UploadSession {
  id: string;
  expires_at: string;
  revoked_at: string | null;
  upload_count: number;
  max_uploads: number;
  created_at: string;
}

interface Verification {
  id: string;
  source: string;
  status: string;
  summary: Record<string, unknown> | null;
  created_at: string;
}

export const clientName = (c: Pick<Client, 'first_name' | 'last_name'>) =>
  [c.last_name, c.first_name].filter(Boolean).join(', ') || '—';

export function Clients() {
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const canWrite = useCan('employee');
  // as you type: the server is asked once the typing pauses
  useEffect(() => {
    const h = setTimeout(() => setQ(text.trim()), 250);
    return () => clearTimeout(h);
  }, [text]);
  return (
    <>
      <div className="page-head">
        <h1>{t('Clients')}</h1>
        {canWrite && (
          <Link href="/clients/new" className="button primary">
            {t('New client')}
          </Link>
        )}
      </div>
      <div className="filters">
        <Field
          label={t('Search')}
          name="q"
          type="search"
          inputMode="search"
          hint={t('DNI, CUIT, name or email')}
          value={text}
          onChange={setText}
        />
      </div>
      <ServerTable<Client>
        path="/api/clients"
        params={{ q }}
        columns={[
          { header: t('Name'), cell: (c) => <Link href={`/clients/${c.id}`}>{clientName(c)}</Link> },
          { header: 'DNI', cell: (c) => c.dni },
          { header: 'CUIT', cell: (c) => c.cuit ?? '—' },
          { header: t('Email'), cell: (c) => c.email ?? '—' },
          { header: t('Phone'), cell: (c) => c.phone ?? '—' },
        ]}
      />
    </>
  );
}

const FIELDS = [
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['dni', 'DNI'],
  ['cuit', 'CUIT'],
  ['email', 'Email'],
  ['phone', 'Phone'],
  ['street', 'Street'],
  ['street_number', 'Number'],
  ['city', 'City'],
  ['state', 'Province'],
  ['zip_code', 'Zip code'],
] as const;
type FieldName = (typeof FIELDS)[number][0];

export function ClientEdit() {
  const { id } = useParams<{ id?: string }>();
  const [, navigate] = useLocation();
  const qc = useQueryClient();
  const existing = useQuery({
    queryKey: ['client', id],
    queryFn: () => api<{ client: Client }>(`/api/clients/${id}`),
    enabled: !!id,
  });
  const { values, setValues, bind } = useValues(
    Object.fromEntries(FIELDS.map(([k]) => [k, ''])) as Record<FieldName, string>,
  );
  const loaded = existing.data?.client;
  useEffect(() => {
    if (loaded) setValues(Object.fromEntries(FIELDS.map(([k]) => [k, loaded[k] ?? ''])) as Record<FieldName, string>);
  }, [loaded, setValues]);
  const save = useMutation({
    mutationFn: () => {
      const body = Object.fromEntries(FIELDS.map(([k]) => [k, values[k].trim() === '' ? null : values[k].trim()]));
      return id
        ? api<Client>(`/api/clients/${id}`, { method: 'PUT', body })
        : api<Client>('/api/clients', { body: { ...body, dni: values.dni.trim() } });
    },
    onSuccess: (c) => {
      qc.invalidateQueries({ queryKey: ['client', c.id] });
      qc.invalidateQueries({ queryKey: ['/api/clients'] });
      navigate(`/clients/${c.id}`);
    },
  });
  const error = save.error instanceof ApiError ? save.error : null;
  return (
    <>
      <h1>{id ? `${t('Edit')}: ${loaded ? clientName(loaded) : ''}` : t('New client')}</h1>
      <form
        className="grid-form"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        {FIELDS.map(([k, label]) => (
          <Field
            key={k}
            label={t(label)}
            {...bind(k)}
            required={k === 'dni'}
            error={error}
            type={k === 'email' ? 'email' : 'text'}
            inputMode={k === 'dni' || k === 'cuit' ? 'numeric' : undefined}
          />
        ))}
        <ErrorNote error={save.error} />
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {t('Save')}
          </button>
          <Link href={id ? `/clients/${id}` : '/clients'} className="button">
            {t('Cancel')}
          </Link>
        </div>
      </form>
    </>
  );
}

export function ClientPage() {
  const { id } = useParams<{ id: string }>();
  const canWrite = useCan('employee');
  const q = useQuery({
    queryKey: ['client', id],
    queryFn: () =>
      api<{ client: Client; credits: Credit[]; files: ClientFile[]; guarantees: Guarantee[] }>(`/api/clients/${id}`),
  });
  if (q.error) return <ErrorNote error={q.error} />;
  if (!q.data) return <p aria-busy="true">{t('Loading')}…</p>;
  const c = q.data.client;
  return (
    <>
      <div className="page-head">
        <h1>{clientName(c)}</h1>
        {canWrite && (
          <div className="actions">
            <Link href={`/clients/${id}/edit`} className="button">
              {t('Edit')}
            </Link>
            <Link href={`/clients/${id}/grant`} className="button primary">
              {t('Grant a credit')}
            </Link>
            <Link href={`/applications/new?client=${id}`} className="button">
              {t('Request a credit')}
            </Link>
          </div>
        )}
      </div>
      <section aria-labelledby="data">
        <h2 id="data">{t('Data')}</h2>
        <dl className="facts">
          {FIELDS.map(([k, label]) => (
            <div key={k}>
              <dt>{t(label)}</dt>
              <dd>{c[k] ?? '—'}</dd>
            </div>
          ))}
        </dl>
      </section>
      <section aria-labelledby="credits">
        <h2 id="credits">{t('Credits')}</h2>
        <Table
          rows={q.data.credits}
          rowKey={(r) => r.id}
          columns={[
            {
              header: t('Credit'),
              cell: (r) => <Link href={`/credits/${r.id}`}>{t('Credit #{n}', { n: r.sequential_id })}</Link>,
            },
            { header: t('Start date'), cell: (r) => fmtDate(r.start_date) },
            { header: t('Amount'), cell: (r) => <Money value={r.amount} />, numeric: true },
            { header: t('Total'), cell: (r) => <Money value={r.total} />, numeric: true },
            { header: t('Status'), cell: (r) => <Status value={r.status} of="credit" /> },
          ]}
        />
      </section>
      <GuaranteesSection guarantees={q.data.guarantees ?? []} />
      <Verifications clientId={id} hasCuit={!!c.cuit} canWrite={canWrite} />
      <Files clientId={id} files={q.data.files} canWrite={canWrite} />
      <UploadLinks clientId={id} canWrite={canWrite} />
    </>
  );
}

function Verifications({ clientId, hasCuit, canWrite }: { clientId: string; hasCuit: boolean; canWrite: boolean }) {
  const qc = useQueryClient();
  const key = [`/api/clients/${clientId}/verifications`];
  const run = useMutation({
    mutationFn: (source: string) => api(`/api/clients/${clientId}/verifications`, { body: { source } }),
    onSettled: () => qc.invalidateQueries({ queryKey: key }),
  });
  return (
    <section aria-labelledby="verifications">
      <h2 id="verifications">{t('Verifications')}</h2>
      {canWrite && hasCuit && (
        <div className="actions">
          <button type="button" disabled={run.isPending} onClick={() => run.mutate('central_bank')}>
            {t('Run central bank lookup')}
          </button>
          <button type="button" disabled={run.isPending} onClick={() => run.mutate('tax_authority')}>
            {t('Run tax authority lookup')}
          </button>
        </div>
      )}
      <ErrorNote error={run.error} />
      <ServerTable<Verification>
        path={`/api/clients/${clientId}/verifications`}
        columns={[
          { header: t('When'), cell: (v) => fmtInstant(v.created_at) },
          { header: t('Type'), cell: (v) => (v.source === 'central_bank' ? t('Central bank') : t('Tax authority')) },
          { header: t('Status'), cell: (v) => t(v.status) },
          { header: t('Summary'), cell: (v) => <VerificationSummary s={v.summary} /> },
        ]}
      />
    </section>
  );
}

function VerificationSummary({ s }: { s: Record<string, unknown> | null }) {
  if (!s) return <>—</>;
  const parts: string[] = [];
  if (s.name) parts.push(String(s.name));
  if (s.worst_situation != null) parts.push(`${t('Worst situation')}: ${s.worst_situation}`);
  if (s.total_debt != null) parts.push(`${t('Total debt')}: ${fmtMoney(Number(s.total_debt))}`);
  if (s.status) parts.push(String(s.status));
  return <>{parts.join(' · ') || '—'}</>;
}

function Files({ clientId, files, canWrite }: { clientId: string; files: ClientFile[]; canWrite: boolean }) {
  const qc = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const upload = useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('file', file);
      return api(`/api/clients/${clientId}/files`, { body: form });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ['client', clientId] }),
  });
  const send = (list: FileList | null) => {
    if (list?.[0]) upload.mutate(list[0]);
  };
  return (
    <section aria-labelledby="files">
      <h2 id="files">{t('Files')}</h2>
      {canWrite && (
        // biome-ignore lint/a11y/noStaticElementInteractions: dropping is a pointer shortcut; the file input inside is the keyboard's way
        <div
          className={`drop${over ? ' over' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={(e) => {
            e.preventDefault();
            setOver(false);
            send(e.dataTransfer.files);
          }}
        >
          <label htmlFor="file-input">{t('Drop a file here or choose one')}</label>
          <input
            id="file-input"
            ref={input}
            type="file"
            accept="image/jpeg,image/png,image/webp,application/pdf"
            onChange={(e) => {
              send(e.target.files);
              e.target.value = '';
            }}
          />
        </div>
      )}
      <ErrorNote error={upload.error} />
      <Table
        rows={files}
        rowKey={(f) => f.id}
        columns={[
          {
            header: t('File name'),
            cell: (f) => (
              <a href={f.file_url} download={f.file_name}>
                {f.file_name}
              </a>
            ),
          },
          { header: t('Type'), cell: (f) => f.file_type },
          { header: t('Size'), cell: (f) => `${fmtNumber(Math.ceil(f.file_size / 1024))} KB`, numeric: true },
          { header: t('Created'), cell: (f) => fmtInstant(f.created_at) },
          ...(canWrite
            ? [
                {
                  header: t('Delete'),
                  cell: (f: ClientFile) => (
                    <ConfirmButton
                      label={t('Delete')}
                      text={`${t('Delete this file?')} ${f.file_name}`}
                      danger
                      onConfirm={async () => {
                        await api(`/api/clients/${clientId}/files/${f.id}`, { method: 'DELETE' });
                        await qc.invalidateQueries({ queryKey: ['client', clientId] });
                      }}
                    />
                  ),
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}

function UploadLinks({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const qc = useQueryClient();
  const key = ['upload-sessions', clientId];
  const q = useQuery({
    queryKey: key,
    queryFn: () => api<UploadSession[]>(`/api/clients/${clientId}/upload-sessions`),
  });
  const [created, setCreated] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const create = useMutation({
    mutationFn: () => api<{ upload_url: string }>(`/api/clients/${clientId}/upload-sessions`, { body: {} }),
    onSuccess: (r) => {
      setCreated(r.upload_url);
      setCopied(false);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: key }),
  });
  return (
    <section aria-labelledby="links">
      <h2 id="links">{t('Upload links')}</h2>
      {canWrite && (
        <button type="button" onClick={() => create.mutate()} disabled={create.isPending}>
          {t('New upload link')}
        </button>
      )}
      <ErrorNote error={create.error} />
      {created && (
        <div className="secret" role="status">
          <p>{t('The link (shown once):')}</p>
          <code>{created}</code>{' '}
          <button
            type="button"
            onClick={async () => {
              await navigator.clipboard?.writeText(created);
              setCopied(true);
            }}
          >
            {copied ? t('Copied') : t('Copy')}
          </button>
        </div>
      )}
      <Table
        rows={q.data ?? []}
        rowKey={(s) => s.id}
        columns={[
          { header: t('Created'), cell: (s) => fmtInstant(s.created_at) },
          { header: t('Expires'), cell: (s) => fmtInstant(s.expires_at) },
          { header: t('Uses'), cell: (s) => `${s.upload_count}/${s.max_uploads}`, numeric: true },
          {
            header: t('Status'),
            cell: (s) =>
              s.revoked_at ? (
                t('Revoked')
              ) : canWrite ? (
                <ConfirmButton
                  label={t('Revoke')}
                  text={t('Revoke')}
                  danger
                  onConfirm={async () => {
                    await api(`/api/clients/${clientId}/upload-sessions/${s.id}`, { method: 'DELETE' });
                    await qc.invalidateQueries({ queryKey: key });
                  }}
                />
              ) : (
                t('Active')
              ),
          },
        ]}
      />
    </section>
  );
}
