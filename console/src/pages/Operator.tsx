// The platform operator's page: every business, its users, and "act as" one of them (the banner
// then says so on every page until they stop).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { api } from '../api.ts';
import { fmtInstant, t } from '../i18n.ts';
import type { Me, User } from '../session.tsx';
import { ErrorNote, Field, ServerTable, Table } from '../ui.tsx';

interface Business {
  id: string;
  name: string;
  slug?: string;
  timezone: string;
  created_at: string;
}

export function Operator() {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const q = useQuery({ queryKey: ['/admin/businesses'], queryFn: () => api<Business[]>('/admin/businesses') });
  const [business, setBusiness] = useState('');
  const [error, setError] = useState<unknown>(null);
  const chosen = business || q.data?.[0]?.id || '';
  const actAs = async (u: User) => {
    setError(null);
    try {
      const me = await api<Me>('/admin/impersonate', { body: { user_id: u.id } });
      qc.clear();
      qc.setQueryData(['me'], me);
      navigate('/');
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <h1>{t('Businesses')}</h1>
      <ErrorNote error={q.error ?? error} />
      <Table
        rows={q.data ?? []}
        rowKey={(b) => b.id}
        columns={[
          { header: t('Name'), cell: (b) => b.name },
          { header: 'Slug', cell: (b) => b.slug ?? '—' },
          { header: 'Timezone', cell: (b) => b.timezone },
          { header: t('Created'), cell: (b) => fmtInstant(b.created_at) },
        ]}
      />
      <section aria-labelledby="users">
        <h2 id="users">{t('Users')}</h2>
        <div className="filters">
          <Field
            label={t('Choose a business')}
            name="business"
            value={chosen}
            onChange={setBusiness}
            options={(q.data ?? []).map((b) => ({ value: b.id, label: b.name }))}
          />
        </div>
        {chosen && (
          <ServerTable<User>
            path={`/admin/businesses/${chosen}/users`}
            columns={[
              { header: t('Name'), cell: (u) => u.name ?? '—' },
              { header: t('Email'), cell: (u) => u.email },
              { header: t('Role'), cell: (u) => t(u.role) },
              {
                header: t('Act as'),
                cell: (u) =>
                  u.disabled_at ? (
                    t('Disabled')
                  ) : (
                    <button type="button" onClick={() => actAs(u)}>
                      {t('Act as')} {u.email}
                    </button>
                  ),
              },
            ]}
          />
        )}
      </section>
    </>
  );
}
