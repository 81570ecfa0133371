import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../../core/api/client';
import { memberAction } from '../../core/admin/admin.api';
import { DESTRUCTIVE_ACTIONS, type MemberAction } from '../../shared/admin.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Props extends IslandI18n {
  userId: number;
  /** The member's name as the confirmation names it (and as it is typed to delete). */
  memberName: string;
  actions: MemberAction[];
  payments: { id: number; label: string }[];
}

const GROUPS: { key: string; actions: MemberAction[] }[] = [
  { key: 'credits', actions: ['grant_credits', 'take_credits', 'block_direct_debit'] },
  { key: 'access', actions: ['suspend', 'lift_ban', 'end_sessions', 'reset_login_limits'] },
  { key: 'destructive', actions: [...DESTRUCTIVE_ACTIONS] },
];
const isDestructive = (a: MemberAction) => (DESTRUCTIVE_ACTIONS as readonly string[]).includes(a);

/**
 * What staff may do to a member (per role), grouped; ban, refund and delete apart, each asking for a
 * confirmation that names the member (deletion: the name typed). Each needs a reason. The page reloads
 * with the result shown.
 */
export function MemberActions(props: Props) {
  const t = useIslandT(props);
  const [error, setError] = useState<{ action: string; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<{ action: MemberAction; body: Record<string, unknown> } | null>(null);
  const [typed, setTyped] = useState('');
  const dialog = useRef<HTMLDialogElement>(null);

  const run = async (action: MemberAction, body: Record<string, unknown>) => {
    setError(null);
    setBusy(true);
    try {
      await memberAction(body);
      const url = new URL(location.href);
      url.searchParams.set('done', action);
      location.assign(url.toString());
    } catch (err) {
      setError({ action, text: err instanceof ApiError ? err.message : t('error.try_later') });
      setBusy(false);
    }
  };
  const submit = (action: MemberAction) => async (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const body: Record<string, unknown> = { action, user_id: props.userId, reason: String(data.get('reason') ?? '') };
    for (const field of ['amount', 'days', 'payment_id']) {
      const value = data.get(field);
      if (value !== null && value !== '') body[field] = field === 'amount' && action === 'refund' ? Math.round(Number(value) * 100) : Number(value);
    }
    if (!isDestructive(action)) return run(action, body);
    setTyped('');
    setPending({ action, body });
  };
  // Opened once its form is drawn, so the dialog's own focusing finds the name field (delete) or Cancel (the others):
  // opened before, it held nothing focusable and typing went nowhere.
  useEffect(() => {
    if (pending && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [pending]);
  const confirm = (e: React.FormEvent) => {
    e.preventDefault();
    if (!pending) return;
    const extra = pending.action === 'delete' ? { confirm_name: typed } : { confirmed: true };
    dialog.current?.close();
    void run(pending.action, { ...pending.body, ...extra });
  };
  const form = (action: MemberAction) => (
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
        <button type="submit" className={isDestructive(action) ? 'btn btn-danger' : 'btn btn-outline'} disabled={busy}>{t(`admin.action.${action}`)}</button>
      </fieldset>
    </form>
  );
  return (
    <>
      {GROUPS.map((group) => {
        const actions = group.actions.filter((a) => props.actions.includes(a));
        if (actions.length === 0) return null;
        return (
          <div key={group.key} className={`admin-action-group${group.key === 'destructive' ? ' admin-danger' : ''}`} data-group={group.key}>
            <h3>{t(`admin.member.group_${group.key}`)}</h3>
            {group.key === 'destructive' && <p>{t('admin.member.destructive_hint')}</p>}
            <div className="admin-actions">{actions.map(form)}</div>
          </div>
        );
      })}
      <dialog ref={dialog} className="admin-confirm" aria-labelledby="confirm-title" onClose={() => setPending(null)}>
        {pending && (
          <form onSubmit={confirm}>
            <h2 id="confirm-title">{t(`admin.confirm.${pending.action}_title`, { name: props.memberName })}</h2>
            <p>{t(`admin.confirm.${pending.action}_text`, { name: props.memberName })}</p>
            {pending.action === 'delete' && (
              <label>{t('admin.confirm.type_name', { name: props.memberName })}
                <input name="confirm_name" value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" required />
              </label>
            )}
            <div className="admin-confirm-buttons">
              <button type="button" className="btn btn-outline" onClick={() => dialog.current?.close()}>{t('admin.confirm.cancel')}</button>
              <button type="submit" className="btn btn-danger"
                disabled={pending.action === 'delete' && typed.trim().toLocaleLowerCase() !== props.memberName.trim().toLocaleLowerCase()}>
                {t(`admin.confirm.${pending.action}_button`, { name: props.memberName })}
              </button>
            </div>
          </form>
        )}
      </dialog>
    </>
  );
}
