// The business's settings (admins, docs/applications.md "Settings"): approval of credits by a
// second person and its employee limit, and the payment reminders' schedule; and the e-mails the
// service sent or queued (GET /api/notifications, docs/notifications.md), by status and client.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link } from 'wouter';
import { ApiError, api } from '../api.ts';
import { fmtInstant, t } from '../i18n.ts';
import { ErrorNote, Field, ServerTable, Status } from '../ui.tsx';
import { ClientPicker } from './Applications.tsx';

interface SettingsRecord {
  approval: { required: boolean; employee_limit: number | null };
  reminders: { enabled: boolean; before_due_days: number[]; overdue_days: number[] };
  locale: string;
  timezone: string;
}

interface Notification {
  id: string;
  client_id: string | null;
  credit_id: string | null;
  kind: string;
  to: string;
  subject: string;
  status: string;
  attempts: number;
  error: string | null;
  created_at: string;
  sent_at: string | null;
}

function Check({
  label,
  hint,
  checked,
  onChange,
}: {
  label: string;
  hint?: string;
  checked: boolean;
  onChange: (v: boolean) => void;
}) {
  const id = useId();
  return (
    <div className="field check">
      <label htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={checked}
          aria-describedby={hint ? `${id}-hint` : undefined}
          onChange={(e) => onChange(e.target.checked)}
        />
        {label}
      </label>
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

/** "1, 7" → [1, 7]; null when a part is not a whole number */
function days(text: string): number[] | null {
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  return parts.every((p) => /^\d+$/.test(p)) ? parts.map(Number) : null;
}

export function Settings() {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ['/api/settings'], queryFn: () => api<SettingsRecord>('/api/settings') });
  const [required, setRequired] = useState(false);
  const [limit, setLimit] = useState('');
  const [enabled, setEnabled] = useState(false);
  const [before, setBefore] = useState('');
  const [after, setAfter] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const s = q.data;
    if (!s) return;
    setRequired(s.approval.required);
    setLimit(s.approval.employee_limit === null ? '' : String(s.approval.employee_limit));
    setEnabled(s.reminders.enabled);
    setBefore(s.reminders.before_due_days.join(', '));
    setAfter(s.reminders.overdue_days.join(', '));
  }, [q.data]);
  if (q.error) return <ErrorNote error={q.error} />;
  if (!q.data) return <p aria-busy="true">{t('Loading')}…</p>;
  const current = q.data;
  const apiError = error instanceof ApiError ? error : null;
  return (
    <>
      <h1>{t('Settings')}</h1>
      <form
        className="settings-form"
        aria-label={t('Settings')}
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          if (busy) return;
          setSaved(false);
          setError(null);
          const b = days(before);
          const a = days(after);
          if (b === null || a === null) {
            const path = b === null ? '/reminders/before_due_days' : '/reminders/overdue_days';
            setError(
              new ApiError(422, 'local', t('Write whole days separated by commas.'), [
                { path, message: t('Write whole days separated by commas.') },
              ]),
            );
            return;
          }
          setBusy(true);
          try {
            const next = await api<SettingsRecord>('/api/settings', {
              method: 'PUT',
              body: {
                approval: { required, employee_limit: limit.trim() === '' ? null : Number(limit) },
                reminders: { enabled, before_due_days: b, overdue_days: a },
                locale: current.locale,
                timezone: current.timezone,
              },
            });
            qc.setQueryData(['/api/settings'], next);
            setSaved(true);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <fieldset>
          <legend>{t('Approval')}</legend>
          <Check
            label={t('Credits only through applications approved by a second person')}
            hint={t('Employees grant credits only through applications; admins may still grant directly.')}
            checked={required}
            onChange={setRequired}
          />
          <Field
            label={t('Largest amount an employee may approve')}
            name="approval/employee_limit"
            type="number"
            inputMode="decimal"
            step="0.01"
            min="0"
            hint={t('Empty: no limit.')}
            value={limit}
            onChange={setLimit}
            error={apiError}
          />
        </fieldset>
        <fieldset>
          <legend>{t('Payment reminders')}</legend>
          <Check label={t('Send e-mail reminders to clients')} checked={enabled} onChange={setEnabled} />
          <Field
            label={t('Days before the due date')}
            name="reminders/before_due_days"
            inputMode="numeric"
            hint={t('Whole days from 0 to 365, separated by commas (e.g. 1, 7).')}
            value={before}
            onChange={setBefore}
            error={apiError}
          />
          <Field
            label={t('Days after the due date')}
            name="reminders/overdue_days"
            inputMode="numeric"
            hint={t('Whole days from 0 to 365, separated by commas (e.g. 1, 7).')}
            value={after}
            onChange={setAfter}
            error={apiError}
          />
        </fieldset>
        <ErrorNote error={error} />
        {saved && (
          <p className="notice" role="status">
            {t('Settings saved.')}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {t('Save')}
          </button>
        </div>
      </form>
    </>
  );
}

const STATUSES = ['queued', 'sent', 'failed', 'not_configured'];

export function Notifications() {
  const [status, setStatus] = useState('');
  const [client, setClient] = useState('');
  return (
    <>
      <h1>{t('Notifications')}</h1>
      <p className="muted">{t('E-mails to clients and users, newest first.')}</p>
      <div className="filters">
        <Field
          label={t('Status')}
          name="status"
          value={status}
          onChange={setStatus}
          options={[{ value: '', label: t('All statuses') }, ...STATUSES.map((s) => ({ value: s, label: t(s) }))]}
        />
        <ClientPicker value={client} onChange={setClient} anyLabel={t('All clients')} />
      </div>
      <ServerTable<Notification>
        path="/api/notifications"
        params={{ status, client_id: client }}
        caption={t('Notifications')}
        columns={[
          { header: t('Created'), cell: (n) => fmtInstant(n.created_at) },
          { header: t('Kind'), cell: (n) => t(n.kind) },
          {
            header: t('Recipient'),
            cell: (n) => (n.client_id ? <Link href={`/clients/${n.client_id}`}>{n.to}</Link> : n.to),
          },
          { header: t('Subject'), cell: (n) => n.subject },
          { header: t('Status'), cell: (n) => <Status value={n.status} /> },
          { header: t('Attempts'), cell: (n) => n.attempts, numeric: true },
          { header: t('Sent'), cell: (n) => fmtInstant(n.sent_at) },
          { header: t('Error'), cell: (n) => n.error ?? '—' },
        ]}
      />
    </>
  );
}
