import { useState } from 'react';
import { ApiError } from '../../core/api/client';
import { memberAction } from '../../core/admin/admin.api';
import type { MemberAction } from '../../shared/admin.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Props extends IslandI18n {
  userId: number;
  actions: MemberAction[];
  payments: { id: number; label: string }[];
}

/** What staff may do to a member (per role), each with a required reason; the page reloads to show the result. */
export function MemberActions(props: Props) {
  const t = useIslandT(props);
  const [error, setError] = useState<{ action: string; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = (action: MemberAction) => async (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const body: Record<string, unknown> = { action, user_id: props.userId, reason: String(data.get('reason') ?? '') };
    for (const field of ['amount', 'days', 'payment_id']) {
      const value = data.get(field);
      if (value !== null && value !== '') body[field] = field === 'amount' && action === 'refund' ? Math.round(Number(value) * 100) : Number(value);
    }
    setError(null);
    setBusy(true);
    try {
      await memberAction(body);
      location.reload();
    } catch (err) {
      setError({ action, text: err instanceof ApiError ? err.message : t('error.try_later') });
      setBusy(false);
    }
  };
  return (
    <div className="admin-actions">
      {props.actions.map((action) => (
        <form key={action} onSubmit={submit(action)} data-action={action}>
          <fieldset>
            <legend>{t(`admin.action.${action}`)}</legend>
            {(action === 'grant_credits' || action === 'take_credits') && (
              <label>{t('admin.field.credits')}<input name="amount" type="number" min="1" step="1" required /></label>
            )}
            {action === 'suspend' && <label>{t('admin.field.days')}<input name="days" type="number" min="1" max="365" required /></label>}
            {action === 'refund' && (
              <>
                <label>{t('admin.field.payment')}
                  <select name="payment_id" required>{props.payments.map((p) => <option key={p.id} value={p.id}>{p.label}</option>)}</select>
                </label>
                <label>{t('admin.field.refund_amount')}<input name="amount" type="number" min="0.01" step="0.01" /></label>
              </>
            )}
            <label>{t('admin.field.reason')}<input name="reason" required minLength={3} maxLength={500} /></label>
            {error?.action === action && <p className="alert alert-danger" role="alert">{error.text}</p>}
            <button type="submit" className="btn btn-outline" disabled={busy}>{t(`admin.action.${action}`)}</button>
          </fieldset>
        </form>
      ))}
    </div>
  );
}
