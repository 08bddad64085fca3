// The platform operator's page: the businesses (paged by the server, searched by name), a business's users, and "act as" one of them (the banner
// then says so on every page until they stop).
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { api } from '../api.ts';
import { fmtInstant, t } from '../i18n.ts';
import type { Me, User } from '../session.tsx';
import { ErrorNote, Field, ServerTable } from '../ui.tsx';

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
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  // the server filters by a part of the name or slug, 250 ms after the last key (as Clientes)
  useEffect(() => {
    const timer = setTimeout(() => setQ(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);
  const [chosen, setChosen] = useState<Business | null>(null);
  const [error, setError] = useState<unknown>(null);
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
      <ErrorNote error={error} />
      <div className="filters">
        <Field label={t('Search')} name="q" type="search" value={search} onChange={setSearch} />
      </div>
      <ServerTable<Business>
        path="/admin/businesses"
        params={q ? { q } : {}}
        columns={[
          { header: t('Name'), cell: (b) => b.name },
          { header: t('Slug'), cell: (b) => b.slug ?? '—' },
          { header: t('Timezone'), cell: (b) => b.timezone },
          { header: t('Created'), cell: (b) => fmtInstant(b.created_at) },
          {
            header: t('Users'),
            cell: (b) => (
              <button type="button" aria-pressed={chosen?.id === b.id} onClick={() => setChosen(b)}>
                {t('Users of {name}', { name: b.name })}
              </button>
            ),
          },
        ]}
      />
      <section aria-labelledby="users">
        <h2 id="users">{chosen ? t('Users of {name}', { name: chosen.name }) : t('Users')}</h2>
        {chosen ? (
          <ServerTable<User>
            path={`/admin/businesses/${chosen.id}/users`}
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
        ) : (
          <p className="empty">{t('Choose a business to see its users.')}</p>
        )}
      </section>
    </>
  );
}
