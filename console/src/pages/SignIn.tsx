// Signing in, and choosing a password from a set-password link (its token is in the URL
// fragment, which no server sees; the page takes it out of the address bar at once).
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { ApiError, api } from '../api.ts';
import { type Lang, setLang, t, useLang } from '../i18n.ts';
import type { Me } from '../session.tsx';
import { ErrorNote, Field } from '../ui.tsx';

const FLASH = 'lending.flash';
const FLASHES: Record<string, string> = {
  expired: 'Your session ended. Sign in again.',
  'signed-out': 'You signed out.',
};
/** A message for the sign-in page after a redirect (session ended, signed out). */
export const flash = (kind: keyof typeof FLASHES) => sessionStorage.setItem(FLASH, kind);

function LangChoice() {
  const lang = useLang();
  return (
    <Field
      label={t('Language')}
      name="lang"
      value={lang}
      onChange={(v) => setLang(v as Lang)}
      options={[
        { value: 'es', label: 'Español' },
        { value: 'en', label: 'English' },
      ]}
    />
  );
}

export function SignIn() {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // asked only after a 409: the email and password open accounts in several businesses
  const [businessId, setBusinessId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [message] = useState(() => {
    const k = sessionStorage.getItem(FLASH);
    sessionStorage.removeItem(FLASH);
    return k ? FLASHES[k] : undefined;
  });
  useEffect(() => {
    document.title = t('Sign in');
  }, []);
  return (
    <main id="main" className="narrow">
      <h1>{t('Sign in')}</h1>
      {message && (
        <p className="notice" role="status">
          {t(message)}
        </p>
      )}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const me = await api<Me>('/auth/login', {
              body: { email, password, ...(businessId ? { business_id: businessId.trim() } : {}) },
            });
            qc.clear();
            qc.setQueryData(['me'], me);
            navigate(me.user ? '/' : '/admin');
          } catch (err) {
            if (err instanceof ApiError && err.status === 409 && businessId === null) setBusinessId('');
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <Field
          label={t('Email')}
          name="email"
          type="email"
          value={email}
          onChange={setEmail}
          autoComplete="username"
          required
        />
        <Field
          label={t('Password')}
          name="password"
          type="password"
          value={password}
          onChange={setPassword}
          autoComplete="current-password"
          required
        />
        {businessId !== null && (
          <Field
            label={t('Business id (your administrator can tell you)')}
            name="business_id"
            value={businessId}
            onChange={setBusinessId}
            required
          />
        )}
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {t('Sign in')}
        </button>
      </form>
      <LangChoice />
    </main>
  );
}

export function SetPassword() {
  const [token] = useState(() => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  useEffect(() => {
    // the secret leaves the address bar (and so the history) at once
    if (window.location.hash) history.replaceState(null, '', window.location.pathname);
    document.title = t('Choose a password');
  }, []);
  return (
    <main id="main" className="narrow">
      <h1>{t('Choose a password')}</h1>
      {!token ? (
        <p className="error" role="alert">
          {t('This link has no token: open the whole link you were sent.')}
        </p>
      ) : done ? (
        <p className="notice" role="status">
          {t('Your password is set. Sign in with your email and this password.')}{' '}
          <a href="/app/sign-in">{t('Sign in')}</a>
        </p>
      ) : (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setError(null);
            if (password !== again) return setError(new ApiError(400, 'mismatch', t('The two passwords differ.')));
            try {
              await api('/auth/set-password', { body: { token, password } });
              setDone(true);
            } catch (err) {
              setError(err);
            }
          }}
        >
          <Field
            label={t('Password')}
            name="password"
            type="password"
            hint={t('At least 12 characters')}
            value={password}
            onChange={setPassword}
            autoComplete="new-password"
            required
            error={error instanceof ApiError ? error : null}
          />
          <Field
            label={t('The same again')}
            name="again"
            type="password"
            value={again}
            onChange={setAgain}
            autoComplete="new-password"
            required
          />
          <ErrorNote error={error} />
          <button type="submit" className="primary">
            {t('Set password')}
          </button>
        </form>
      )}
      <LangChoice />
    </main>
  );
}
