// The administration pages: plans (with a simulation), branches, holidays, users, API keys,
// webhooks, the audit log and the leads inbox. Each is a list and, for those who may, a form.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { type Page, api, newKey, qs } from '../api.ts';
import { fmtDate, fmtInstant, fmtPct, t } from '../i18n.ts';
import { PasswordDialog } from '../dialog.tsx';
import { type User, useCan } from '../session.tsx';
import { ConfirmButton, ErrorNote, Field, Money, QuickForm, ServerTable, ShownOnce, Table } from '../ui.tsx';
import { userName, useUsers } from './CollectionActions.tsx';
import { SimulationView, useSimulation } from './Grant.tsx';
import { type Plan, useBranches, usePlans } from './shared.ts';

const yesNo = (b: boolean) => (b ? t('Yes') : t('No'));

export function Plans() {
  const qc = useQueryClient();
  const isAdmin = useCan('admin');
  const plans = usePlans();
  const [plan, setPlan] = useState('');
  const [amount, setAmount] = useState('100000');
  const sim = useSimulation(plan || plans[0]?.id || '', amount, '');
  return (
    <>
      <h1>{t('Plans')}</h1>
      <Table<Plan>
        rows={plans}
        rowKey={(p) => p.id}
        columns={[
          { header: t('Name'), cell: (p) => p.name },
          { header: t('Installments count'), cell: (p) => p.installments_count, numeric: true },
          { header: t('Cut type'), cell: (p) => t(`cut_${p.cut_type}`) },
          { header: t('Interest'), cell: (p) => fmtPct(p.interest_rate), numeric: true },
          { header: t('Amortization'), cell: (p) => t(`amortization_${p.amortization}`) },
          { header: t('Active'), cell: (p) => yesNo(p.is_active) },
        ]}
      />
      {isAdmin && (
        <QuickForm
          title={t('New plan')}
          submitLabel={t('Save')}
          fields={[
            { name: 'name', label: t('Name'), required: true },
            {
              name: 'installments_count',
              label: t('Installments count'),
              type: 'number',
              initial: '6',
              required: true,
            },
            {
              name: 'cut_type',
              label: t('Cut type'),
              options: [
                { value: 'monthly', label: t('cut_monthly') },
                { value: 'fixed', label: t('cut_fixed') },
              ],
            },
            {
              name: 'interest_rate',
              label: t('Interest rate (per period, e.g. 0.35)'),
              initial: '0.3',
              required: true,
            },
            { name: 'daily_punitory_rate', label: t('Daily punitory rate'), initial: '0.003', required: true },
            {
              name: 'amortization',
              label: t('Amortization'),
              options: [
                { value: 'flat', label: t('amortization_flat') },
                { value: 'french', label: t('amortization_french') },
              ],
            },
          ]}
          submit={async (v) => {
            await api('/api/credit-configs', {
              idempotencyKey: newKey(),
              body: {
                name: v.name,
                installments_count: Number(v.installments_count),
                cut_type: v.cut_type,
                interest_rate: Number(v.interest_rate),
                daily_punitory_rate: Number(v.daily_punitory_rate),
                amortization: v.amortization,
              },
            });
            await qc.invalidateQueries({ queryKey: ['/api/credit-configs'] });
          }}
        />
      )}
      <section aria-labelledby="plan-sim">
        <h2 id="plan-sim">{t('Simulation')}</h2>
        <div className="filters">
          <Field
            label={t('Plan')}
            name="plan"
            value={plan || plans[0]?.id || ''}
            onChange={setPlan}
            options={plans.map((p) => ({ value: p.id, label: p.name }))}
          />
          <Field label={t('Amount')} name="amount" type="number" value={amount} onChange={setAmount} />
        </div>
        <ErrorNote error={sim.error} />
        {sim.data && <SimulationView sim={sim.data} />}
      </section>
    </>
  );
}

export function Branches() {
  const qc = useQueryClient();
  const isAdmin = useCan('admin');
  const branches = useBranches();
  return (
    <>
      <h1>{t('Branches')}</h1>
      <Table
        rows={branches}
        rowKey={(b) => b.id}
        columns={[
          { header: t('Name'), cell: (b) => b.name },
          { header: t('Address'), cell: (b) => b.address ?? '—' },
          { header: t('Phone'), cell: (b) => b.phone ?? '—' },
          { header: t('Active'), cell: (b) => yesNo(!b.deleted_at) },
        ]}
      />
      {isAdmin && (
        <QuickForm
          title={t('New branch')}
          submitLabel={t('Save')}
          fields={[
            { name: 'name', label: t('Name'), required: true },
            { name: 'address', label: t('Address') },
            { name: 'phone', label: t('Phone') },
          ]}
          submit={async (v) => {
            await api('/api/branches', {
              body: {
                name: v.name,
                ...(v.address ? { address: v.address } : {}),
                ...(v.phone ? { phone: v.phone } : {}),
              },
            });
            await qc.invalidateQueries({ queryKey: ['/api/branches'] });
          }}
        />
      )}
    </>
  );
}

export function Holidays() {
  const qc = useQueryClient();
  const isAdmin = useCan('admin');
  const q = useQuery({
    queryKey: ['/api/holidays'],
    queryFn: () => api<{ date: string; name: string }[]>('/api/holidays'),
  });
  return (
    <>
      <h1>{t('Holidays')}</h1>
      <ErrorNote error={q.error} />
      <Table
        rows={q.data ?? []}
        rowKey={(h) => h.date}
        columns={[
          { header: t('Date'), cell: (h) => fmtDate(h.date) },
          { header: t('Name'), cell: (h) => h.name },
          ...(isAdmin
            ? [
                {
                  header: t('Delete'),
                  cell: (h: { date: string; name: string }) => (
                    <ConfirmButton
                      label={t('Delete')}
                      text={`${fmtDate(h.date)} ${h.name}`}
                      danger
                      onConfirm={async () => {
                        await api(`/api/holidays/${h.date}`, { method: 'DELETE' });
                        await qc.invalidateQueries({ queryKey: ['/api/holidays'] });
                      }}
                    />
                  ),
                },
              ]
            : []),
        ]}
      />
      {isAdmin && (
        <QuickForm
          title={t('New holiday')}
          submitLabel={t('Save')}
          fields={[
            { name: 'date', label: t('Date'), type: 'date', required: true },
            { name: 'name', label: t('Name'), required: true },
          ]}
          submit={async (v) => {
            await api('/api/holidays', { body: v });
            await qc.invalidateQueries({ queryKey: ['/api/holidays'] });
          }}
        />
      )}
    </>
  );
}

const ROLES = ['viewer', 'employee', 'admin'] as const;

export function Users() {
  const qc = useQueryClient();
  const [link, setLink] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: ['/api/users'] });
  const linkOf = async (p: Promise<{ set_password_url: string }>) => setLink((await p).set_password_url);
  /** the user being made an admin, while the password dialog is open */
  const [promote, setPromote] = useState<User | null>(null);
  return (
    <>
      <h1>{t('Users')}</h1>
      {promote && (
        <PasswordDialog
          title={t('Make {email} an admin', { email: promote.email })}
          text={t('An admin can do everything in the business. Confirm it is you with your own password.')}
          submitLabel={t('Make admin')}
          onCancel={() => setPromote(null)}
          onSubmit={async (current_password) => {
            await api(`/api/users/${promote.id}`, { method: 'PUT', body: { role: 'admin', current_password } });
            setPromote(null);
            await refresh();
          }}
        />
      )}
      {link && <ShownOnce label={t('Send this link to the person; it works once, for 72 hours:')} value={link} />}
      <ServerTable<User>
        path="/api/users"
        columns={[
          { header: t('Name'), cell: (u) => u.name ?? '—' },
          { header: t('Email'), cell: (u) => u.email },
          {
            header: t('Role'),
            cell: (u) => (
              <select
                aria-label={`${t('Role')}: ${u.email}`}
                value={u.role}
                onChange={async (e) => {
                  const role = e.target.value;
                  // making an admin asks for the admin's own password again (docs/security.md), in a dialog
                  if (role === 'admin' && u.role !== 'admin') return setPromote(u);
                  await api(`/api/users/${u.id}`, { method: 'PUT', body: { role } }).catch((err) => alert(err.message));
                  await refresh();
                }}
              >
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {t(r)}
                  </option>
                ))}
              </select>
            ),
          },
          { header: t('Last sign-in'), cell: (u) => fmtInstant(u.last_login_at) },
          {
            header: t('Status'),
            cell: (u) =>
              u.disabled_at ? (
                <button
                  type="button"
                  onClick={async () => {
                    await api(`/api/users/${u.id}`, { method: 'PUT', body: { disabled: false } });
                    await refresh();
                  }}
                >
                  {t('Enable')}
                </button>
              ) : (
                <ConfirmButton
                  label={t('Disable')}
                  text={`${t('Disable')}: ${u.email}`}
                  danger
                  onConfirm={async () => {
                    await api(`/api/users/${u.id}`, { method: 'DELETE' });
                    await refresh();
                  }}
                />
              ),
          },
          {
            header: t('Password link'),
            cell: (u) => (
              <button
                type="button"
                onClick={() =>
                  linkOf(api(`/api/users/${u.id}/password-link`, { method: 'POST', idempotencyKey: newKey() }))
                }
              >
                {t('Password link')}
              </button>
            ),
          },
        ]}
      />
      <QuickForm
        title={t('Invite a user')}
        submitLabel={t('Invite')}
        fields={[
          { name: 'email', label: t('Email'), type: 'email', required: true },
          { name: 'name', label: t('Name') },
          {
            name: 'role',
            label: t('Role'),
            options: ROLES.map((r) => ({ value: r, label: t(r) })),
            initial: 'employee',
          },
          { name: 'current_password', label: t('Your password (only to make an admin)'), type: 'password' },
        ]}
        submit={async (v) => {
          await linkOf(
            api('/api/users', {
              idempotencyKey: newKey(),
              body: {
                email: v.email,
                role: v.role,
                ...(v.name ? { name: v.name } : {}),
                ...(v.role === 'admin' && v.current_password ? { current_password: v.current_password } : {}),
              },
            }),
          );
          await refresh();
        }}
      />
    </>
  );
}

interface ApiKey {
  id: string;
  name: string | null;
  scope: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function Keys() {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ['/api/keys'], queryFn: () => api<ApiKey[]>('/api/keys') });
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: ['/api/keys'] });
  return (
    <>
      <h1>{t('API keys')}</h1>
      {secret && <ShownOnce label={t('Copy the secret now: it is not shown again.')} value={secret} />}
      <ErrorNote error={q.error} />
      <Table
        rows={q.data ?? []}
        rowKey={(k) => k.id}
        columns={[
          { header: t('Name'), cell: (k) => k.name ?? '—' },
          { header: t('Scope'), cell: (k) => t(`scope_${k.scope}`) },
          { header: t('Prefix'), cell: (k) => <code>{k.prefix}</code> },
          { header: t('Created'), cell: (k) => fmtInstant(k.created_at) },
          { header: t('Last used'), cell: (k) => fmtInstant(k.last_used_at) },
          {
            header: t('Status'),
            cell: (k) =>
              k.revoked_at ? (
                `${t('Revoked')} ${fmtInstant(k.revoked_at)}`
              ) : (
                <ConfirmButton
                  label={t('Revoke')}
                  text={`${t('Revoke this key? Systems using it stop working.')} (${k.name ?? k.prefix})`}
                  danger
                  onConfirm={async () => {
                    await api(`/api/keys/${k.id}`, { method: 'DELETE' });
                    await refresh();
                  }}
                />
              ),
          },
        ]}
      />
      <QuickForm
        title={t('New key')}
        submitLabel={t('Save')}
        fields={[
          { name: 'name', label: t('Name') },
          {
            name: 'scope',
            label: t('Scope'),
            options: [
              { value: 'read', label: t('scope_read') },
              { value: 'full', label: t('scope_full') },
            ],
          },
        ]}
        submit={async (v) => {
          const k = await api<{ key: string }>('/api/keys', {
            idempotencyKey: newKey(),
            body: { scope: v.scope, ...(v.name ? { name: v.name } : {}) },
          });
          setSecret(k.key);
          await refresh();
        }}
      />
    </>
  );
}

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
}
interface Delivery {
  id: string;
  event_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export function Webhooks() {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ['/api/webhook-endpoints'],
    queryFn: () => api<Endpoint[]>('/api/webhook-endpoints'),
  });
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <>
      <h1>{t('Webhooks')}</h1>
      {secret && <ShownOnce label={t('Signing secret (shown once):')} value={secret} />}
      <ErrorNote error={q.error} />
      <Table
        caption={t('Endpoints')}
        rows={q.data ?? []}
        rowKey={(e) => e.id}
        columns={[
          { header: 'URL', cell: (e) => <code>{e.url}</code> },
          { header: t('Events'), cell: (e) => e.events.join(', ') },
          { header: t('Active'), cell: (e) => yesNo(e.enabled) },
          {
            header: t('Deliveries'),
            cell: (e) => (
              <button type="button" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>
                {t('Deliveries')}
              </button>
            ),
          },
          {
            header: t('Delete'),
            cell: (e) => (
              <ConfirmButton
                label={t('Delete')}
                text={e.url}
                danger
                onConfirm={async () => {
                  await api(`/api/webhook-endpoints/${e.id}`, { method: 'DELETE' });
                  await qc.invalidateQueries({ queryKey: ['/api/webhook-endpoints'] });
                }}
              />
            ),
          },
        ]}
      />
      {open && (
        <section aria-labelledby="deliveries">
          <h2 id="deliveries">{t('Deliveries')}</h2>
          <ServerTable<Delivery>
            path={`/api/webhook-endpoints/${open}/deliveries`}
            columns={[
              { header: t('When'), cell: (d) => fmtInstant(d.created_at) },
              { header: '#', cell: (d) => d.attempt, numeric: true },
              { header: 'HTTP', cell: (d) => d.status_code ?? '—' },
              { header: t('Status'), cell: (d) => (d.delivered_at ? '✓' : (d.error ?? '…')) },
              {
                header: t('Retry'),
                cell: (d) =>
                  d.delivered_at ? null : (
                    <button
                      type="button"
                      onClick={async () => {
                        await api(`/api/webhook-endpoints/${open}/deliveries/${d.id}/retry`, { method: 'POST' });
                        await qc.invalidateQueries({ queryKey: [`/api/webhook-endpoints/${open}/deliveries`] });
                      }}
                    >
                      {t('Retry')}
                    </button>
                  ),
              },
            ]}
          />
        </section>
      )}
      <QuickForm
        title={t('New endpoint')}
        submitLabel={t('Save')}
        fields={[
          { name: 'url', label: 'URL (https://…)', type: 'url', required: true },
          { name: 'events', label: t('Events'), initial: '*', hint: t('client.created, payment.created, … (* = all)') },
          { name: 'description', label: t('Description') },
        ]}
        submit={async (v) => {
          const r = await api<{ secret: string }>('/api/webhook-endpoints', {
            idempotencyKey: newKey(),
            body: {
              url: v.url,
              events: (v.events || '*')
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
              ...(v.description ? { description: v.description } : {}),
            },
          });
          setSecret(r.secret);
          await qc.invalidateQueries({ queryKey: ['/api/webhook-endpoints'] });
        }}
      />
    </>
  );
}

interface LogEntry {
  id: string;
  table_name: string;
  action: string;
  record_id: string;
  old_data: Record<string, unknown> | null;
  new_data: Record<string, unknown> | null;
  changed_at: string;
  actor: string;
  impersonated_by: string | null;
}

/** The fields a change touched: old and new side by side (an insert or delete shows one side). */
function Changes({ e }: { e: LogEntry }) {
  const keys = [...new Set([...Object.keys(e.old_data ?? {}), ...Object.keys(e.new_data ?? {})])].filter(
    (k) => k !== 'updated_at' && JSON.stringify(e.old_data?.[k]) !== JSON.stringify(e.new_data?.[k]),
  );
  if (keys.length === 0) return <>—</>;
  const show = (v: unknown) => (v === undefined ? '' : JSON.stringify(v));
  return (
    <details>
      <summary>{keys.slice(0, 4).join(', ') + (keys.length > 4 ? '…' : '')}</summary>
      <table className="diff">
        <thead>
          <tr>
            <th scope="col">{t('Name')}</th>
            <th scope="col">{t('Before')}</th>
            <th scope="col">{t('After')}</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td>{show(e.old_data?.[k])}</td>
              <td>{show(e.new_data?.[k])}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/** The tables whose changes the audit triggers keep, as the log names them. */
const AUDITED = [
  'clients',
  'credits',
  'installments',
  'ledger',
  'payments',
  'waivers',
  'applications',
  'promises',
  'client_notes',
  'credit_guarantors',
  'credit_configs',
  'branches',
  'holidays',
  'client_files',
  'upload_sessions',
  'verifications',
  'leads',
  'payment_imports',
  'business_settings',
  'users',
  'api_keys',
  'webhook_endpoints',
  'impersonations',
];

export function Audit() {
  // `user:<id>` said by the user's name where the viewer may list users (admins)
  const users = useUsers(useCan('admin'));
  const actorName = (actor: string) => {
    const id = actor.startsWith('user:') ? actor.slice(5) : null;
    const u = id ? users.find((x) => x.id === id) : undefined;
    return u ? userName(u) : actor === 'cli' ? t('command line') : actor;
  };
  const [table, setTable] = useState('');
  const [action, setAction] = useState('');
  // cursor paging: the cursors of the pages seen, to go back
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const q = useQuery({
    queryKey: ['/api/logs', table, action, cursor],
    queryFn: () => api<Page<LogEntry>>(`/api/logs${qs({ table_name: table, action, cursor, limit: 25 })}`),
  });
  const reset = () => setCursors([]);
  return (
    <>
      <h1>{t('Audit log')}</h1>
      <div className="filters">
        <Field
          label={t('Table')}
          name="table_name"
          value={table}
          onChange={(v) => {
            setTable(v);
            reset();
          }}
          options={['', ...AUDITED].map((v) => ({ value: v, label: v ? t(`table_${v}`) : '—' }))}
        />
        <Field
          label={t('Action')}
          name="action"
          value={action}
          onChange={(v) => {
            setAction(v);
            reset();
          }}
          options={['', 'INSERT', 'UPDATE', 'DELETE'].map((v) => ({ value: v, label: v ? t(`action_${v}`) : '—' }))}
        />
      </div>
      <ErrorNote error={q.error} />
      <p className="muted">{t('Newest first')}</p>
      <Table
        rows={q.data?.items ?? []}
        rowKey={(e) => e.id}
        columns={[
          { header: t('When'), cell: (e) => fmtInstant(e.changed_at) },
          { header: t('Table'), cell: (e) => t(`table_${e.table_name}`) },
          { header: t('Action'), cell: (e) => t(`action_${e.action}`) },
          {
            header: t('Actor'),
            cell: (e) => actorName(e.actor) + (e.impersonated_by ? ` (${actorName(e.impersonated_by)})` : ''),
          },
          { header: t('Data'), cell: (e) => <Changes e={e} /> },
        ]}
      />
      <nav className="pager" aria-label={t('Audit log')}>
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← {t('Previous')}
        </button>
        <button
          type="button"
          disabled={!q.data?.next_cursor}
          onClick={() => q.data?.next_cursor && setCursors([...cursors, q.data.next_cursor])}
        >
          {t('Older entries')} →
        </button>
      </nav>
    </>
  );
}

interface Lead {
  id: string;
  first_name: string;
  last_name: string;
  dni: string;
  phone: string | null;
  email: string | null;
  amount_requested: number | null;
  message: string | null;
  created_at: string;
  /** the client it became (docs/leads.md); null while not converted */
  converted_client_id: string | null;
}

export function Leads() {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const canWrite = useCan('employee');
  return (
    <>
      <h1>{t('Leads')}</h1>
      <ServerTable<Lead>
        path="/api/leads"
        columns={[
          { header: t('When'), cell: (l) => fmtInstant(l.created_at) },
          { header: t('Name'), cell: (l) => `${l.last_name}, ${l.first_name}` },
          { header: 'DNI', cell: (l) => l.dni },
          { header: t('Phone'), cell: (l) => l.phone ?? '—' },
          { header: t('Requested amount'), cell: (l) => <Money value={l.amount_requested} />, numeric: true },
          { header: t('Message'), cell: (l) => l.message ?? '—' },
          ...(canWrite
            ? [
                {
                  header: t('Convert'),
                  cell: (l: Lead) =>
                    l.converted_client_id ? (
                      <a href={`/app/clients/${l.converted_client_id}`}>{t('Client')}</a>
                    ) : (
                      <ConfirmButton
                        label={t('Convert')}
                        text={`${l.last_name}, ${l.first_name} (DNI ${l.dni})`}
                        onConfirm={async () => {
                          const c = await api<{ id: string }>(`/api/leads/${l.id}/convert`, { method: 'POST' });
                          await qc.invalidateQueries({ queryKey: ['/api/leads'] });
                          navigate(`/clients/${c.id}`);
                        }}
                      />
                    ),
                },
              ]
            : []),
        ]}
      />
    </>
  );
}
