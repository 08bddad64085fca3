// Guarantors and co-borrowers (docs/applications.md "Guarantors"): on a credit's page, who backs
// it, adding one (a client found by the same search as the clients page) and removing one; on a
// client's page, the credits that client backs.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { ApiError, type Page, api, newKey, qs } from '../api.ts';
import { fmtInstant, t } from '../i18n.ts';
import { ConfirmButton, ErrorNote, Field, Money, Status, Table } from '../ui.tsx';
import { type Client, type Credit, clientName } from './Clients.tsx';

export interface Guarantor {
  id: string;
  credit_id: string;
  client_id: string;
  role: 'guarantor' | 'co_borrower';
  created_at: string;
}

export interface Guarantee {
  id: string;
  credit_id: string;
  borrower_id: string;
  role: 'guarantor' | 'co_borrower';
  status: string;
  outstanding: number;
  created_at: string;
}

/** A client's name, read once and cached under the client page's own key. */
function ClientLink({ id }: { id: string }) {
  const q = useQuery({
    queryKey: ['client', id],
    queryFn: () => api<{ client: Client }>(`/api/clients/${id}`),
    staleTime: 60_000,
  });
  return (
    <Link href={`/clients/${id}`}>
      {q.data ? `${clientName(q.data.client)} (DNI ${q.data.client.dni})` : t('Client')}
    </Link>
  );
}

function CreditLink({ id }: { id: string }) {
  const q = useQuery({
    queryKey: ['credit', id],
    queryFn: () => api<{ credit: Credit }>(`/api/credits/${id}`),
    staleTime: 60_000,
  });
  return (
    <Link href={`/credits/${id}`}>{q.data ? t('Credit #{n}', { n: q.data.credit.sequential_id }) : t('Credit')}</Link>
  );
}

export function GuarantorsSection({
  creditId,
  borrowerId,
  guarantors,
  canWrite,
  onDone,
}: {
  creditId: string;
  borrowerId: string;
  guarantors: Guarantor[];
  canWrite: boolean;
  onDone: () => Promise<void>;
}) {
  return (
    <section aria-labelledby="guarantors">
      <h2 id="guarantors">{t('Guarantors')}</h2>
      <Table
        caption={t('Guarantors and co-borrowers')}
        rows={guarantors}
        rowKey={(g) => g.id}
        columns={[
          { header: t('Client'), cell: (g) => <ClientLink id={g.client_id} /> },
          { header: t('Role'), cell: (g) => t(`role_${g.role}`) },
          { header: t('Added'), cell: (g) => fmtInstant(g.created_at) },
          ...(canWrite
            ? [
                {
                  header: t('Remove'),
                  cell: (g: Guarantor) => (
                    <ConfirmButton
                      label={t('Remove')}
                      title={t('Remove this guarantor')}
                      text={t('The client stops backing this credit. Nothing else changes.')}
                      danger
                      onConfirm={async () => {
                        await api(`/api/credits/${creditId}/guarantors/${g.id}`, { method: 'DELETE' });
                        await onDone();
                      }}
                    />
                  ),
                },
              ]
            : []),
        ]}
      />
      {canWrite && <AddGuarantor creditId={creditId} borrowerId={borrowerId} onDone={onDone} />}
    </section>
  );
}

function AddGuarantor({
  creditId,
  borrowerId,
  onDone,
}: {
  creditId: string;
  borrowerId: string;
  onDone: () => Promise<void>;
}) {
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const [clientId, setClientId] = useState('');
  const [role, setRole] = useState('guarantor');
  const [key, setKey] = useState(newKey);
  useEffect(() => {
    const h = setTimeout(() => setQ(text.trim()), 250);
    return () => clearTimeout(h);
  }, [text]);
  const found = useQuery({
    queryKey: ['/api/clients', { q }, 0, 10],
    queryFn: () => api<Page<Client>>(`/api/clients${qs({ q, limit: 10, offset: 0 })}`),
    enabled: q.length >= 2,
  });
  const matches = (found.data?.items ?? []).filter((c) => c.id !== borrowerId);
  const chosen = matches.some((c) => c.id === clientId) ? clientId : (matches[0]?.id ?? '');
  const add = useMutation({
    mutationFn: () =>
      api(`/api/credits/${creditId}/guarantors`, { body: { client_id: chosen, role }, idempotencyKey: key }),
    onSuccess: async () => {
      setKey(newKey());
      setText('');
      setClientId('');
      await onDone();
    },
  });
  const error = add.error instanceof ApiError ? add.error : null;
  return (
    <form
      className="grid-form boxed"
      aria-label={t('Add a guarantor')}
      onSubmit={(e) => {
        e.preventDefault();
        if (chosen && !add.isPending) add.mutate();
      }}
    >
      <h3>{t('Add a guarantor')}</h3>
      <Field
        label={t('Find the client')}
        name="q"
        type="search"
        inputMode="search"
        hint={t('DNI, CUIT, name or email')}
        value={text}
        onChange={setText}
      />
      <Field
        label={t('Client')}
        name="client_id"
        value={chosen}
        onChange={setClientId}
        required
        error={error}
        options={
          matches.length
            ? matches.map((c) => ({ value: c.id, label: `${clientName(c)} · DNI ${c.dni}` }))
            : [{ value: '', label: q.length >= 2 && found.data ? t('No client found') : '—' }]
        }
      />
      <Field
        label={t('Role')}
        name="role"
        value={role}
        onChange={setRole}
        error={error}
        options={[
          { value: 'guarantor', label: t('role_guarantor') },
          { value: 'co_borrower', label: t('role_co_borrower') },
        ]}
      />
      <ErrorNote error={add.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={!chosen || add.isPending}>
          {t('Add')}
        </button>
      </div>
    </form>
  );
}

/** On a client's page: the credits the client backs, with their status and what they owe. */
export function GuaranteesSection({ guarantees }: { guarantees: Guarantee[] }) {
  return (
    <section aria-labelledby="guarantees">
      <h2 id="guarantees">{t('Guarantees')}</h2>
      <Table
        caption={t('Credits this client backs')}
        rows={guarantees}
        rowKey={(g) => g.id}
        columns={[
          { header: t('Credit'), cell: (g) => <CreditLink id={g.credit_id} /> },
          { header: t('Borrower'), cell: (g) => <ClientLink id={g.borrower_id} /> },
          { header: t('Role'), cell: (g) => t(`role_${g.role}`) },
          { header: t('Status'), cell: (g) => <Status value={g.status} of="credit" /> },
          { header: t('Balance'), cell: (g) => <Money value={g.outstanding} />, numeric: true },
        ]}
      />
    </section>
  );
}
