// A modal form in a <dialog> (and the password dialog built on it): open while mounted, labelled by its
// title, the focus starting in its first field and kept inside (Tab wraps), Escape or *Cancel*
// calls onCancel, the API's `details` under each field and any other refusal under the form. The
// dialog stays open until onSubmit succeeds; a second submit while the first is on its way sends
// nothing.
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { ApiError } from './api.ts';
import { t } from './i18n.ts';
import { ErrorNote, PasswordField, trapFocus } from './ui.tsx';

export function FormDialog({
  title,
  text,
  submitLabel,
  onSubmit,
  onCancel,
  children,
}: {
  title: string;
  text?: string;
  submitLabel: string;
  onSubmit: () => Promise<unknown>;
  onCancel: () => void;
  /** the fields; they get the last error through `error` */
  children: (error: ApiError | null) => ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    // the first field, not the dialog's first button
    d?.querySelector<HTMLElement>('input, select, textarea')?.focus();
    return () => d?.close();
  }, []);
  const apiError = error instanceof ApiError ? error : null;
  // a refusal about one of the dialog's fields is written under it; any other under the form
  const aboutAField =
    apiError !== null &&
    apiError.details.some((d) => {
      const name = d.path.split('/')[1];
      return !!name && !!ref.current?.querySelector(`[name="${CSS.escape(name)}"]`);
    });
  return (
    <dialog
      ref={ref}
      aria-labelledby={`${id}-t`}
      aria-describedby={text ? `${id}-d` : undefined}
      onKeyDown={trapFocus}
      onCancel={(e) => {
        // Escape: the parent unmounts the dialog, which closes it
        e.preventDefault();
        onCancel();
      }}
    >
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          if (busy) return;
          setBusy(true);
          try {
            await onSubmit();
          } catch (err) {
            setError(err);
            setBusy(false);
          }
        }}
      >
        <h2 id={`${id}-t`}>{title}</h2>
        {text && <p id={`${id}-d`}>{text}</p>}
        {children(apiError)}
        {error && !aboutAField ? <ErrorNote error={error} /> : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {submitLabel}
          </button>
          <button type="button" onClick={onCancel}>
            {t('Cancel')}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/**
 * A modal dialog asking for the signed-in person's own password before something that needs it
 * again (making an admin): a FormDialog with the password field. A refusal about
 * `current_password` is written under the field, any other (a wrong password) under the form.
 */
export function PasswordDialog({
  title,
  text,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  title: string;
  text: string;
  submitLabel: string;
  onSubmit: (password: string) => Promise<unknown>;
  onCancel: () => void;
}) {
  const [password, setPassword] = useState('');
  return (
    <FormDialog
      title={title}
      text={text}
      submitLabel={submitLabel}
      onCancel={onCancel}
      onSubmit={() => onSubmit(password)}
    >
      {(error) => <PasswordField value={password} onChange={setPassword} error={error} />}
    </FormDialog>
  );
}
