// What a collector does about a credit (docs/collections.md): record a promise to pay, write a
// contact note, assign the credit's collector (admins). Each in a modal dialog, opened from a row
// of the worklist or from the credit page; and the credit page's list of promises and notes.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type Page, api, newKey, qs } from '../api.ts';
import { FormDialog } from '../dialog.tsx';
import { fmtDate, fmtInstant, t } from '../i18n.ts';
import { type Me, type User, useCan, useMe } from '../session.tsx';
import { ConfirmButton, ErrorNote, Field, Money, Pager, Status, Table } from '../ui.tsx';
import { today } from './Credit.tsx';

export interface PromiseToPay {
  id: string;
  credit_id: string;
  amount: number;
  promised_for: string;
  status: string;
  note: string | null;
  created_by: string;
  created_at: string;
}

export interface Note {
  id: string;
  client_id: string;
  credit_id: string | null;
  channel: string;
  outcome: string;
  created_by: string;
  created_at: string;
}

const CHANNELS = ['call', 'whatsapp', 'visit', 'sms', 'email', 'other'];

/** YYYY-MM-DD, `days` after `from` */
const addDays = (from: string, days: number) =>
  new Date(Date.parse(`${from}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** Everything a promise or a note changes: the worklist, the credit's promises, the client's notes. */
export function useCollectionsRefresh() {
  const qc = useQueryClient();
  return () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['/api/installments'] }),
      qc.invalidateQueries({ queryKey: ['promises'] }),
      qc.invalidateQueries({ queryKey: ['notes'] }),
    ]);
}

export function PromiseDialog({
  creditId,
  label,
  amount: suggested,
  onClose,
}: {
  creditId: string;
  /** the credit as the person knows it (Crédito n.º 12) */
  label: string;
  amount?: number;
  onClose: () => void;
}) {
  const me = useMe().data;
  const refresh = useCollectionsRefresh();
  const [amount, setAmount] = useState(suggested ? String(suggested) : '');
  const [day, setDay] = useState(() => addDays(today(me), 7));
  const [note, setNote] = useState('');
  const [key] = useState(newKey);
  return (
    <FormDialog
      title={`${t('Promise to pay')} · ${label}`}
      submitLabel={t('Record a promise')}
      onCancel={onClose}
      onSubmit={async () => {
        await api(`/api/credits/${creditId}/promises`, {
          idempotencyKey: key,
          body: { amount: Number(amount), promised_for: day, ...(note.trim() ? { note: note.trim() } : {}) },
        });
        await refresh();
        onClose();
      }}
    >
      {(error) => (
        <>
          <Field
            label={t('Promised amount')}
            name="amount"
            type="number"
            inputMode="decimal"
            step="0.01"
            min="0"
            required
            value={amount}
            onChange={setAmount}
            error={error}
          />
          <Field
            label={t('Pay by')}
            name="promised_for"
            type="date"
            required
            min={today(me)}
            hint={t('From today up to 60 days ahead.')}
            value={day}
            onChange={setDay}
            error={error}
          />
          <Field label={t('Note')} name="note" multiline value={note} onChange={setNote} error={error} />
        </>
      )}
    </FormDialog>
  );
}

export function NoteDialog({
  clientId,
  creditId,
  label,
  onClose,
}: {
  clientId: string;
  creditId: string | null;
  label: string;
  onClose: () => void;
}) {
  const refresh = useCollectionsRefresh();
  const [channel, setChannel] = useState('call');
  const [outcome, setOutcome] = useState('');
  const [key] = useState(newKey);
  return (
    <FormDialog
      title={`${t('Contact note')} · ${label}`}
      submitLabel={t('Add a note')}
      onCancel={onClose}
      onSubmit={async () => {
        await api(`/api/clients/${clientId}/notes`, {
          idempotencyKey: key,
          body: { channel, outcome, ...(creditId ? { credit_id: creditId } : {}) },
        });
        await refresh();
        onClose();
      }}
    >
      {(error) => (
        <>
          <Field
            label={t('Channel')}
            name="channel"
            required
            value={channel}
            onChange={setChannel}
            options={CHANNELS.map((c) => ({ value: c, label: t(c) }))}
            error={error}
          />
          <Field
            label={t('What was said')}
            name="outcome"
            multiline
            required
            value={outcome}
            onChange={setOutcome}
            error={error}
          />
        </>
      )}
    </FormDialog>
  );
}

/** The business's enabled users (admins only may list them): the collectors to choose from. */
export function useUsers(enabled: boolean): User[] {
  const q = useQuery({
    queryKey: ['/api/users', 'all'],
    enabled,
    staleTime: 60_000,
    queryFn: () => api<Page<User>>(`/api/users${qs({ limit: 100 })}`),
  });
  return (q.data?.items ?? []).filter((u) => !u.disabled_at);
}

export const userName = (u: Pick<User, 'name' | 'email'>) => u.name ?? u.email;

/** The collector's name as the viewer can know it: theirs, "vos", or (admins) any user's. */
export function collectorName(id: string | null, me: Me | null | undefined, users: User[]): string {
  if (id === null) return t('Nobody');
  if (id === me?.user?.id) return t('you');
  const u = users.find((x) => x.id === id);
  return u ? userName(u) : t('Collector');
}

export function CollectorDialog({
  creditId,
  label,
  current,
  onClose,
}: {
  creditId: string;
  label: string;
  current: string | null;
  onClose: () => void;
}) {
  const users = useUsers(true);
  const qc = useQueryClient();
  const [user, setUser] = useState(current ?? '');
  return (
    <FormDialog
      title={t('Collector of credit #{n}', { n: label })}
      submitLabel={t('Assign')}
      onCancel={onClose}
      onSubmit={async () => {
        await api(`/api/credits/${creditId}/collector`, { method: 'PUT', body: { user_id: user || null } });
        await Promise.all([
          qc.invalidateQueries({ queryKey: ['/api/installments'] }),
          qc.invalidateQueries({ queryKey: ['credit', creditId] }),
        ]);
        onClose();
      }}
    >
      {(error) => (
        <Field
          label={t('Collector')}
          name="user_id"
          value={user}
          onChange={setUser}
          options={[{ value: '', label: t('Nobody') }, ...users.map((u) => ({ value: u.id, label: userName(u) }))]}
          error={error}
        />
      )}
    </FormDialog>
  );
}

/**
 * The credit page's part: its promises (status as of today, cancel a pending one), the client's
 * contact notes, and the buttons to record a promise, write a note, assign the collector.
 */
/** A credit's promises (the credit page asks for them with the credit itself, not after it). */
export function usePromises(creditId: string) {
  return useQuery({
    queryKey: ['promises', creditId],
    queryFn: () => api<PromiseToPay[]>(`/api/credits/${creditId}/promises`),
  });
}

export function CreditCollections({
  credit,
}: {
  credit: { id: string; client_id: string; sequential_id: number; status: string; collector_id?: string | null };
}) {
  const me = useMe().data;
  const canWrite = useCan('employee');
  const isAdmin = useCan('admin');
  const users = useUsers(isAdmin);
  const refresh = useCollectionsRefresh();
  const [open, setOpen] = useState<'promise' | 'note' | 'collector' | null>(null);
  const [notesOffset, setNotesOffset] = useState(0);
  const label = t('Credit #{n}', { n: credit.sequential_id });
  const promises = usePromises(credit.id);
  const notes = useQuery({
    queryKey: ['notes', credit.client_id, notesOffset],
    queryFn: () => api<Page<Note>>(`/api/clients/${credit.client_id}/notes${qs({ limit: 10, offset: notesOffset })}`),
  });
  const takesPromises = credit.status === 'active' || credit.status === 'written_off';
  return (
    <section aria-labelledby="collections">
      <div className="page-head">
        <h2 id="collections">{t('Promises and notes')}</h2>
        {canWrite && (
          <div className="actions">
            {takesPromises && (
              <button type="button" onClick={() => setOpen('promise')}>
                {t('Record a promise')}
              </button>
            )}
            <button type="button" onClick={() => setOpen('note')}>
              {t('Add a note')}
            </button>
            {isAdmin && (
              <button type="button" onClick={() => setOpen('collector')}>
                {t('Assign a collector')}
              </button>
            )}
          </div>
        )}
      </div>
      {credit.collector_id !== undefined && (
        <p>
          {t('Collector')}: <strong>{collectorName(credit.collector_id, me, users)}</strong>
        </p>
      )}
      <ErrorNote error={promises.error} />
      <Table
        rows={promises.data ?? []}
        rowKey={(p) => p.id}
        caption={t('Promises')}
        columns={[
          { header: t('Pay by'), cell: (p) => fmtDate(p.promised_for) },
          { header: t('Amount'), cell: (p) => <Money value={p.amount} />, numeric: true },
          { header: t('Status'), cell: (p) => <Status value={p.status} /> },
          { header: t('Note'), cell: (p) => p.note ?? '—' },
          { header: t('Created'), cell: (p) => fmtInstant(p.created_at) },
          ...(canWrite
            ? [
                {
                  header: t('Actions'),
                  cell: (p: PromiseToPay) =>
                    p.status === 'pending' ? (
                      <ConfirmButton
                        label={t('Cancel promise')}
                        title={t('Cancel this promise')}
                        text={t('The promise stays in the history as cancelled.')}
                        onConfirm={async () => {
                          await api(`/api/credits/${credit.id}/promises/${p.id}/cancel`, { method: 'POST' });
                          await refresh();
                        }}
                      />
                    ) : null,
                },
              ]
            : []),
        ]}
      />
      <ErrorNote error={notes.error} />
      <Table
        rows={notes.data?.items ?? []}
        rowKey={(n) => n.id}
        caption={t('Notes')}
        columns={[
          { header: t('When'), cell: (n) => fmtInstant(n.created_at) },
          { header: t('Channel'), cell: (n) => t(n.channel) },
          { header: t('What was said'), cell: (n) => n.outcome },
          {
            header: t('Credit'),
            cell: (n) => (n.credit_id === credit.id ? label : n.credit_id ? t('Other credit') : '—'),
          },
        ]}
      />
      {notes.data && (
        <Pager
          offset={notesOffset}
          limit={10}
          total={notes.data.total}
          count={notes.data.items.length}
          onChange={setNotesOffset}
        />
      )}
      {open === 'promise' && <PromiseDialog creditId={credit.id} label={label} onClose={() => setOpen(null)} />}
      {open === 'note' && (
        <NoteDialog clientId={credit.client_id} creditId={credit.id} label={label} onClose={() => setOpen(null)} />
      )}
      {open === 'collector' && (
        <CollectorDialog
          creditId={credit.id}
          label={String(credit.sequential_id)}
          current={credit.collector_id ?? null}
          onClose={() => setOpen(null)}
        />
      )}
    </section>
  );
}
