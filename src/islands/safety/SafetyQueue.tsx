import { useState } from 'react';
import { ApiError } from '../../core/api/client';
import { safetyAction } from '../../core/admin/admin.api';
import { SAFETY_ACTIONS, type SafetyAction, type SignalKind } from '../../shared/safety.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';

export interface QueueAccount {
  user_id: number;
  profile_id: number;
  name: string;
  signals: number;
  kinds: Partial<Record<SignalKind, number>>;
  history: { account_created_at: number; conversations_started: number; reports_against: number; paid_payments: number };
  messages: {
    kinds: SignalKind[];
    message_id: number | null;
    text: string | null;
    score: number | null;
    context: { id: number; sender: string; kind: string; text: string | null; flagged: boolean }[];
  }[];
}

interface Props extends IslandI18n {
  accounts: QueueAccount[];
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The staff safety queue (issue 26): flagged accounts with their messages in context, history and actions. */
export function SafetyQueue(props: Props) {
  const t = useIslandT(props);
  const [accounts, setAccounts] = useState(props.accounts);
  const [notice, setNotice] = useState<{ userId: number; ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const act = (userId: number) => async (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const action = ((e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null)?.value as SafetyAction;
    const days = action === 'suspend' ? data.get('days') : null;
    setBusy(true);
    setNotice(null);
    try {
      await safetyAction({ user_id: userId, action, reason: String(data.get('reason') ?? ''), ...(days ? { days: Number(days) } : {}) });
      setAccounts((list) => list.filter((a) => a.user_id !== userId));
      setNotice({ userId, ok: true, text: t(`safety.done_${action}`) });
    } catch (err) {
      setNotice({ userId, ok: false, text: err instanceof ApiError ? err.message : t('error.try_later') });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="safety-queue">
      {notice && <p className={notice.ok ? 'notice' : 'alert alert-danger'} role={notice.ok ? 'status' : 'alert'}>{notice.text}</p>}
      {accounts.length === 0 ? <p>{t('safety.empty')}</p> : (
        <ul className="safety-list" role="list">
          {accounts.map((account) => (
            <li key={account.user_id} className="settings-section" data-safety-account={account.user_id}>
              <h2><a href={`/admin/members/${account.user_id}`}>{account.name}</a> <small>{t('safety.signals', { count: account.signals })}</small></h2>
              <p className="safety-kinds">
                {Object.entries(account.kinds).map(([kind, n]) => <span key={kind} className="badge" data-kind={kind}>{t(`safety.kind_${kind}`)} × {n}</span>)}
              </p>
              <p className="field-hint">{t('safety.history', {
                date: day(account.history.account_created_at), started: account.history.conversations_started,
                reports: account.history.reports_against, payments: account.history.paid_payments,
              })}</p>
              {account.messages.map((m, k) => (
                <details key={m.message_id ?? `k${k}`} open={k === 0}>
                  <summary>{m.kinds.map((kind) => t(`safety.kind_${kind}`)).join(', ')}{m.score !== null ? ` · ${t('safety.score', { score: m.score.toFixed(2) })}` : ''}: <q>{m.text ?? t('safety.image')}</q></summary>
                  {m.context.length > 0 && (
                    <ol className="safety-context" aria-label={t('safety.context')}>
                      {m.context.map((c) => (
                        <li key={c.id} className={c.flagged ? 'flagged' : undefined}><strong>{c.sender}:</strong> {c.kind === 'text' ? c.text : t(`moderation.message_kind_${c.kind}`)}</li>
                      ))}
                    </ol>
                  )}
                </details>
              ))}
              <form className="safety-act" onSubmit={act(account.user_id)}>
                <fieldset disabled={busy}>
                  <label>{t('safety.reason')}<input name="reason" required minLength={3} maxLength={500} /></label>
                  <label>{t('safety.days')}<input name="days" type="number" min={1} max={365} defaultValue={7} /></label>
                  <span className="safety-buttons">
                    {SAFETY_ACTIONS.map((action) => (
                      <button key={action} type="submit" name="action" value={action} className={action === 'dismiss' ? 'btn btn-outline btn-sm' : 'btn btn-primary btn-sm'}>{t(`safety.${action}`)}</button>
                    ))}
                  </span>
                </fieldset>
              </form>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
