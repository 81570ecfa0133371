import { useStore } from '@nanostores/react';
import { type FormEvent, useEffect, useState } from 'react';
import * as actions from '../../core/accounts/actions';
import { ApiError } from '../../core/api/client';
import { $user, setInitialUser } from '../../core/session/store';
import { $pendingActions, runAction } from '../../core/toast/action.store';
import { NOTIFICATION_TYPES } from '../../shared/accounts.contract';
import type { SessionUser } from '../../shared/user.contract';
import { Field } from '../shared/Field';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Props extends IslandI18n {
  user: SessionUser;
  deleteDiscount: number;
  /** The site's trial package (a deletion alternative), or null. */
  trialBundle: number | null;
}

type Status = { ok: boolean; text: string } | null;
const message = (err: unknown, fallback: string) => (err instanceof ApiError ? err.message : fallback);

/** Settings: notification preferences per type, invisible mode, explicit images unblurred, password, e-mail, data download, deletion. */
export function SettingsPanel(props: Props) {
  const t = useIslandT(props);
  useEffect(() => setInitialUser(props.user), [props.user]);
  const user = useStore($user) ?? props.user;
  const [passwordStatus, setPasswordStatus] = useState<Status>(null);
  const [mailStatus, setMailStatus] = useState<Status>(null);
  const [deleteStep, setDeleteStep] = useState<'closed' | 'alternatives' | 'confirm'>('closed');
  const [deleteError, setDeleteError] = useState<string | null>(null);

  // Every save shows "Saving…" at once, disables its control and ends in a toast with "Try again" on failure.
  const pending = useStore($pendingActions);
  const togglePref = (channel: 'email_prefs' | 'push_prefs', type: string, value: boolean) =>
    runAction(`settings.${channel}.${type}`, () => actions.saveSettings({ [channel]: { [type]: value } }));
  const toggleInvisible = (value: boolean) => runAction('settings.invisible', () => actions.saveSettings({ invisible: value }));
  const toggleExplicit = (value: boolean) => runAction('settings.show_explicit_images', () => actions.saveSettings({ show_explicit_images: value }));

  /** Runs a form's action as a member action; field problems (a wrong password) also show in the form. */
  const withStatus = (key: string, setStatus: (s: Status) => void, okKey: string, action: (data: FormData) => Promise<unknown>) =>
    async (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      const form = event.currentTarget;
      const data = new FormData(form);
      setStatus(null);
      const outcome = await runAction(key, () => action(data), { success: t(okKey) });
      if (outcome.ok) form.reset();
      else if (outcome.error instanceof ApiError && outcome.error.status < 500) setStatus({ ok: false, text: message(outcome.error, t('error.try_later')) });
    };
  const changePassword = withStatus('settings.password', setPasswordStatus, 'settings.password_changed', (data) =>
    actions.changePassword(String(data.get('old_password')), String(data.get('password')), String(data.get('password_repeat'))));
  const changeMail = withStatus('settings.mail', setMailStatus, 'settings.mail_sent', (data) =>
    actions.requestMailChange(String(data.get('email')), String(data.get('password'))));
  const busyLabel = (key: string, label: string) => (pending[key] ? t('toast.saving') : label);

  async function confirmDelete(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setDeleteError(null);
    try {
      await actions.deleteAccount(String(data.get('password')), String(data.get('reason') ?? ''));
      location.assign('/account-deleted');
    } catch (err) {
      setDeleteError(message(err, t('error.try_later')));
    }
  }

  const status = (s: Status) => s && <p className={s.ok ? 'notice' : 'alert alert-danger'} role={s.ok ? 'status' : 'alert'}>{s.text}</p>;

  return (
    <div className="settings">
      <section className="settings-section" aria-labelledby="s-notifications">
        <h2 id="s-notifications">{t('settings.notifications_title')}</h2>
        <table className="prefs-table">
          <thead>
            <tr><th scope="col">{t('settings.type')}</th><th scope="col">{t('settings.email_channel')}</th><th scope="col">{t('settings.push_channel')}</th></tr>
          </thead>
          <tbody>
            {NOTIFICATION_TYPES.map((type) => (
              <tr key={type}>
                <th scope="row">{t(`notification_type.${type}`)}</th>
                <td><input type="checkbox" className="switch" aria-label={`${t(`notification_type.${type}`)}: ${t('settings.email_channel')}`} checked={user.email_prefs[type] !== false} disabled={pending[`settings.email_prefs.${type}`]} onChange={(e) => togglePref('email_prefs', type, e.target.checked)} /></td>
                <td><input type="checkbox" className="switch" aria-label={`${t(`notification_type.${type}`)}: ${t('settings.push_channel')}`} checked={user.push_prefs[type] !== false} disabled={pending[`settings.push_prefs.${type}`]} onChange={(e) => togglePref('push_prefs', type, e.target.checked)} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section className="settings-section" aria-labelledby="s-privacy">
        <h2 id="s-privacy">{t('settings.privacy_title')}</h2>
        <label className="switch-row">
          <span><strong>{t('settings.invisible')}</strong><br /><span className="field-hint">{t('settings.invisible_text')}</span></span>
          <input type="checkbox" className="switch" checked={user.invisible} disabled={pending['settings.invisible']} onChange={(e) => toggleInvisible(e.target.checked)} />
        </label>
        <label className="switch-row">
          <span><strong>{t('settings.show_explicit_images')}</strong><br /><span className="field-hint">{t('settings.show_explicit_images_text')}</span></span>
          <input type="checkbox" className="switch" name="show_explicit_images" checked={user.show_explicit_images} disabled={pending['settings.show_explicit_images']} onChange={(e) => toggleExplicit(e.target.checked)} />
        </label>
        <p><a href="/api/export.php" download>{t('settings.download_data')}</a></p>
      </section>

      <section className="settings-section" aria-labelledby="s-password">
        <h2 id="s-password">{t('settings.password_title')}</h2>
        <form method="post" onSubmit={changePassword} noValidate>
          <Field name="old_password" type="password" label={t('settings.old_password')} autoComplete="current-password" required />
          <Field name="password" type="password" label={t('settings.new_password')} autoComplete="new-password" required minLength={8} />
          <Field name="password_repeat" type="password" label={t('auth.password_repeat')} autoComplete="new-password" required />
          {status(passwordStatus)}
          <div className="form-actions"><button className="btn btn-secondary" type="submit" disabled={pending['settings.password']}>{busyLabel('settings.password', t('settings.password_save'))}</button></div>
        </form>
      </section>

      <section className="settings-section" aria-labelledby="s-email">
        <h2 id="s-email">{t('settings.email_title')}</h2>
        <p>{t('settings.current_email', { email: user.email })}</p>
        <form method="post" onSubmit={changeMail} noValidate>
          <Field name="email" type="email" label={t('settings.new_email')} autoComplete="email" required />
          <Field name="password" id="f-mail-password" type="password" label={t('auth.password')} autoComplete="current-password" required />
          {status(mailStatus)}
          <div className="form-actions"><button className="btn btn-secondary" type="submit" disabled={pending['settings.mail']}>{busyLabel('settings.mail', t('settings.email_save'))}</button></div>
        </form>
      </section>

      <section className="settings-section" aria-labelledby="s-delete">
        <h2 id="s-delete">{t('settings.delete_title')}</h2>
        {deleteStep === 'closed' && <button type="button" className="btn btn-outline" onClick={() => setDeleteStep('alternatives')}>{t('settings.delete_start')}</button>}
        {deleteStep === 'alternatives' && (
          <div>
            <p>{t('settings.delete_alternatives')}</p>
            <ul className="alternatives">
              <li><strong>{t('settings.alt_email')}</strong> <a href="#s-email">{t('settings.email_title')}</a></li>
              <li><strong>{t('settings.alt_privacy')}</strong> <button type="button" className="link-button" onClick={() => toggleInvisible(true).then((outcome) => outcome.ok && setDeleteStep('closed'))}>{t('settings.invisible')}</button></li>
              <li><strong>{t('settings.alt_trial')}</strong> <a href={props.trialBundle ? `/credits/${props.trialBundle}` : '/credits'}>{t('nav.credits')}</a></li>
              {props.deleteDiscount > 0 && <li><strong>{t('settings.alt_discount', { percent: props.deleteDiscount })}</strong> <a href={`/credits?discount=stay${props.deleteDiscount}`}>{t('settings.alt_discount_cta')}</a></li>}
            </ul>
            <div className="form-actions">
              <button type="button" className="btn btn-primary" onClick={() => setDeleteStep('closed')}>{t('settings.delete_keep')}</button>
              <button type="button" className="btn btn-outline" onClick={() => setDeleteStep('confirm')}>{t('settings.delete_continue')}</button>
            </div>
          </div>
        )}
        {deleteStep === 'confirm' && (
          <form method="post" onSubmit={confirmDelete} noValidate>
            <p>{t('settings.delete_confirm_text', { days: 14 })}</p>
            <Field name="password" id="f-delete-password" type="password" label={t('auth.password')} autoComplete="current-password" required error={deleteError ?? undefined} />
            <div className="field">
              <label htmlFor="f-reason">{t('settings.delete_reason')}</label>
              <textarea id="f-reason" name="reason" rows={2} maxLength={500} />
            </div>
            <div className="form-actions">
              <button type="button" className="btn btn-primary" onClick={() => setDeleteStep('closed')}>{t('settings.delete_keep')}</button>
              <button type="submit" className="btn btn-outline">{t('settings.delete_confirm')}</button>
            </div>
          </form>
        )}
      </section>
    </div>
  );
}
