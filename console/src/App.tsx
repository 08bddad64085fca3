// The shell: who is signed in decides between the sign-in pages, the operator's page and the
// business console (menu from the route table, a permanent banner while an operator acts as a
// user).
import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { Link, Redirect, Route, Router, Switch, useLocation } from 'wouter';
import { api, setSessionEndedHandler } from './api.ts';
import { type Lang, setLang, setTimeZone, t, useLang, useUserLanguage } from './i18n.ts';
import { PAGES } from './routes.tsx';
import { useCan, useMe } from './session.tsx';
import { SetPassword, SignIn, flash } from './pages/SignIn.tsx';
import { Operator } from './pages/Operator.tsx';
import { ErrorNote } from './ui.tsx';

export function App() {
  return (
    <Router base="/app">
      <Shell />
    </Router>
  );
}

function Shell() {
  useLang();
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const me = useMe();
  useEffect(
    () =>
      setSessionEndedHandler(() => {
        flash('expired');
        qc.setQueryData(['me'], null);
        qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'me' });
        navigate('/sign-in');
      }),
    [qc, navigate],
  );
  useUserLanguage(me.data?.user?.id ?? me.data?.operator?.id ?? null);
  if (me.data?.business) setTimeZone(me.data.business.timezone);

  if (me.isPending) return <p aria-busy="true">{t('Loading')}…</p>;
  if (me.error) return <ErrorNote error={me.error} />;
  return (
    <Switch>
      <Route path="/set-password" component={SetPassword} />
      <Route path="/sign-in">{me.data ? <Redirect to={me.data.user ? '/' : '/admin'} /> : <SignIn />}</Route>
      <Route>
        {!me.data ? (
          <Redirect to="/sign-in" />
        ) : !me.data.user ? (
          <Frame>
            <Operator />
          </Frame>
        ) : (
          <Frame>
            <Pages />
          </Frame>
        )}
      </Route>
    </Switch>
  );
}

function Pages() {
  const isAdmin = useCan('admin');
  const isEmployee = useCan('employee');
  const allowed = (r: string) => r === 'viewer' || (r === 'employee' && isEmployee) || isAdmin;
  return (
    <Switch>
      {PAGES.filter((p) => allowed(p.role)).map((p) => (
        <Route key={p.path} path={p.path} component={p.component} />
      ))}
      <Route>
        <h1>{t('Page not found')}</h1>
      </Route>
    </Switch>
  );
}

function Frame({ children }: { children: ReactNode }) {
  const me = useMe().data!;
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [location] = useLocation();
  const [open, setOpen] = useState(false);
  const lang = useLang();
  const can = { employee: useCan('employee'), admin: useCan('admin') };
  const nav = me.user ? PAGES.filter((p) => p.nav && (p.role === 'viewer' || can[p.role])) : [];
  // each page says where the person is (again when the language changes)
  // biome-ignore lint/correctness/useExhaustiveDependencies: lang changes what t() answers
  useEffect(() => {
    setOpen(false);
    const page = PAGES.find((p) => p.path === location);
    document.title = `${page ? t(page.title) : t('Home')} · ${me.business?.name ?? t('Platform operators')}`;
  }, [location, me, lang]);

  const signOut = async () => {
    try {
      await api('/auth/logout', { method: 'POST' });
    } catch {}
    flash('signed-out');
    qc.clear();
    qc.setQueryData(['me'], null);
    navigate('/sign-in');
  };
  const stop = async () => {
    const next = await api('/admin/impersonate/stop', { method: 'POST' });
    qc.clear();
    qc.setQueryData(['me'], next);
    navigate('/admin');
  };
  return (
    <>
      <a className="skip" href="#main">
        {t('Skip to content')}
      </a>
      {me.impersonated_by && (
        <div className="impersonation" role="status">
          <strong>
            {t('Acting as {user} ({business})', {
              user: me.user?.name ?? me.user?.email ?? '',
              business: me.business?.name ?? '',
            })}
          </strong>{' '}
          · {me.impersonated_by}{' '}
          <button type="button" onClick={stop}>
            {t('Stop')}
          </button>
        </div>
      )}
      <header className="top">
        <span className="brand">{me.business?.name ?? t('Platform operators')}</span>
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={open}
          aria-controls="nav"
          onClick={() => setOpen(!open)}
        >
          {t('Menu')}
        </button>
        <div className="who">
          <span>{me.user ? `${me.user.name ?? me.user.email} · ${t(me.user.role)}` : (me.operator?.email ?? '')}</span>
          <label className="lang">
            <span className="sr-only">{t('Language')}</span>
            <select value={lang} onChange={(e) => setLang(e.target.value as Lang)} aria-label={t('Language')}>
              <option value="es">Español</option>
              <option value="en">English</option>
            </select>
          </label>
          <button type="button" onClick={signOut}>
            {t('Sign out')}
          </button>
        </div>
      </header>
      <div className="layout">
        {nav.length > 0 && (
          <nav id="nav" className={open ? 'open' : undefined} aria-label={t('Menu')}>
            <ul>
              {nav.map((p) => (
                <li key={p.path}>
                  <Link href={p.path} aria-current={location === p.path ? 'page' : undefined}>
                    {t(p.title)}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </>
  );
}
