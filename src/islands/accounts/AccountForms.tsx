import { type FormEvent, useEffect, useState } from 'react';
import * as actions from '../../core/accounts/actions';
import { ApiError } from '../../core/api/client';
import { login } from '../../core/session/store';
import { safeNextPath } from '../../shared/redirect';
import { Field } from '../shared/Field';
import { type IslandI18n, useIslandT } from '../shared/i18n';

function errorsOf(err: unknown, fallback: string): { message: string; fields: Record<string, string>; code: string } {
  if (err instanceof ApiError) return { message: err.message, fields: err.fields, code: err.code };
  return { message: fallback, fields: {}, code: 'network' };
}

type FormError = ReturnType<typeof errorsOf>;
/** Submit handling shared by the forms: busy while the action runs, its refusal kept for display. */
function useFormAction(fallback: string, action: (data: FormData) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<FormError | null>(null);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action(new FormData(event.currentTarget));
    } catch (err) {
      setError(errorsOf(err, fallback));
      setBusy(false);
    }
  }
  return { busy, error, submit };
}

/** /login */
export function LoginForm(props: IslandI18n & { next?: string; initialError?: string; email?: string }) {
  const t = useIslandT(props);
  const { busy, error, submit } = useFormAction(t('error.try_later'), async (data) => {
    await login(String(data.get('email')), String(data.get('password')));
    location.assign(safeNextPath(props.next, location.origin) ?? '/members');
  });
  return (
    <form method="post" onSubmit={submit} noValidate>
      {(error?.message ?? props.initialError) && <p className="alert alert-danger" role="alert">{error?.message ?? props.initialError}</p>}
      <Field name="email" type="email" label={t('auth.email')} autoComplete="username" required defaultValue={props.email} />
      <Field name="password" type="password" label={t('auth.password')} autoComplete="current-password" required />
      <div className="form-actions">
        <button className="btn btn-primary" type="submit" disabled={busy}>{busy ? t('common.loading') : t('auth.login_button')}</button>
      </div>
      <p className="form-links">
        <a href="/reset-password">{t('auth.forgot_password')}</a>
        <span>{t('auth.no_account')} <a href="/signup">{t('nav.signup')}</a></span>
      </p>
    </form>
  );
}

/** /reset-password */
export function ResetRequestForm(props: IslandI18n) {
  const t = useIslandT(props);
  const [sent, setSent] = useState(false);
  const { busy, error, submit } = useFormAction(t('error.try_later'), async (data) => {
    await actions.requestPasswordReset(String(data.get('email')));
    setSent(true);
  });
  if (sent) return <p className="notice" role="status">{t('reset.sent')}</p>;
  return (
    <form method="post" onSubmit={submit} noValidate>
      <p>{t('reset.intro')}</p>
      {error && <p className="alert alert-danger" role="alert">{error.message}</p>}
      <Field name="email" type="email" label={t('auth.email')} autoComplete="email" required />
      <div className="form-actions">
        <button className="btn btn-primary" type="submit" disabled={busy}>{t('reset.send')}</button>
      </div>
    </form>
  );
}

/** /reset-password/do?token=… */
export function ResetDoForm(props: IslandI18n & { token: string }) {
  const t = useIslandT(props);
  const { busy, error, submit } = useFormAction(t('error.try_later'), async (data) => {
    await actions.resetPassword(props.token, String(data.get('password')), String(data.get('password_repeat')));
    location.assign('/members');
  });
  return (
    <form method="post" onSubmit={submit} noValidate>
      {error && (
        <p className="alert alert-danger" role="alert">
          {error.message} {error.code === 'link_invalid' && <a href="/reset-password">{t('reset.request_new')}</a>}
        </p>
      )}
      <Field name="password" type="password" label={t('settings.new_password')} autoComplete="new-password" required minLength={8} error={error?.fields.password} hint={t('auth.password_too_short', { min: 8 })} />
      <Field name="password_repeat" type="password" label={t('auth.password_repeat')} autoComplete="new-password" required error={error?.fields.password_repeat} />
      <div className="form-actions">
        <button className="btn btn-primary" type="submit" disabled={busy}>{t('common.save')}</button>
      </div>
    </form>
  );
}

/** /mail-change/do?token=… : confirms on open. */
export function MailChangeConfirm(props: IslandI18n & { token: string }) {
  const t = useIslandT(props);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  useEffect(() => {
    actions
      .confirmMailChange(props.token)
      .then(({ email }) => setResult({ ok: true, text: t('mailchange.done', { email }) }))
      .catch((err) => setResult({ ok: false, text: errorsOf(err, t('error.try_later')).message }));
  }, [props.token, t]);
  if (!result) return <p role="status">{t('common.loading')}</p>;
  return <p className={result.ok ? 'notice' : 'alert alert-danger'} role={result.ok ? 'status' : 'alert'}>{result.text}</p>;
}

/** /complete-signup?token=… : finishes an account created through the affiliate API. */
export function CompleteSignupForm(props: IslandI18n & { token: string; minAge: number; apiSignupComplete: boolean }) {
  const t = useIslandT(props);
  const { busy, error, submit } = useFormAction(t('error.try_later'), async (data) => {
    await actions.completeSignup({
      token: props.token, name: String(data.get('name')), password: String(data.get('password')), date_of_birth: String(data.get('date_of_birth')),
    });
    location.assign(props.apiSignupComplete ? '/members?api_signup_complete=1' : '/members');
  });
  return (
    <form method="post" onSubmit={submit} noValidate>
      {error && <p className="alert alert-danger" role="alert">{error.message}</p>}
      <Field name="name" label={t('auth.username')} autoComplete="nickname" required error={error?.fields.name} />
      <Field name="date_of_birth" type="date" label={t('auth.dob_hint', { min_age: props.minAge })} required error={error?.fields.date_of_birth} />
      <Field name="password" type="password" label={t('auth.password')} autoComplete="new-password" required error={error?.fields.password} />
      <div className="form-actions">
        <button className="btn btn-primary" type="submit" disabled={busy}>{t('complete.submit')}</button>
      </div>
    </form>
  );
}
