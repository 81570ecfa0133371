import { useStore } from '@nanostores/react';
import { type FormEvent, useRef, useState } from 'react';
import { ApiError } from '../../core/api/client';
import { blockProfile, likeProfile, reportProfile, unblockProfile } from '../../core/profiles/actions';
import { $pendingActions, runAction } from '../../core/toast/action.store';
import { REPORT_REASONS } from '../../shared/profiles.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';
import { withIslandData } from '../shared/island-data';
import { PREMIUM_FEATURE_CODES, PremiumOnlyAlert } from '../shared/PremiumOnlyAlert';

interface Props extends IslandI18n {
  profileId: number;
  name: string;
  liked: boolean;
  blocked: boolean;
}

/** Like, chat, gift, block/unblock and report on a profile (members only; visitors get signup links). */
export function ProfileActions(props: Props) {
  const t = useIslandT(props);
  const [liked, setLiked] = useState(props.liked);
  const [blocked, setBlocked] = useState(props.blocked);
  const [status, setStatus] = useState<{ ok: boolean; text: string; premium?: boolean } | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const pending = useStore($pendingActions);
  const likeKey = `like.${props.profileId}`;
  // Every action shows its state at once and ends in a toast (failures with "Try again"); a premium-only refusal also
  // shows its offer here.
  const premiumOffer = (err: unknown) => {
    if (err instanceof ApiError && PREMIUM_FEATURE_CODES.has(err.code)) setStatus({ ok: false, text: err.message, premium: true });
  };

  async function like() {
    setStatus(null);
    const outcome = await runAction(likeKey, () => likeProfile(props.profileId), { savingToast: false, success: false });
    if (!outcome.ok) return premiumOffer(outcome.error);
    setLiked(true);
    setStatus({ ok: true, text: outcome.value.match ? t('like.match', { name: props.name }) : t('like.sent', { name: props.name }) });
  }
  async function toggleBlock() {
    setStatus(null);
    const done = blocked ? t('profile.unblocked', { name: props.name }) : t('profile.blocked_done', { name: props.name });
    const outcome = await runAction(`block.${props.profileId}`, () => (blocked ? unblockProfile(props.profileId) : blockProfile(props.profileId)), { success: done });
    if (outcome.ok) setBlocked(!blocked);
    else premiumOffer(outcome.error);
  }
  async function report(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setStatus(null);
    const outcome = await runAction(`report.${props.profileId}`, () => reportProfile(props.profileId, String(data.get('reason')), String(data.get('details') ?? '')), { success: t('profile.reported') });
    if (outcome.ok) dialog.current?.close();
  }

  const likeOff = liked || blocked || Boolean(pending[likeKey]);
  return (
    <div className="profile-actions">
      <div className="action-row">
        {/* aria-disabled, not disabled: a disabled button drops the keyboard focus the member just put on it. */}
        <button type="button" className="btn btn-primary" onClick={() => { if (!likeOff) void like(); }} aria-disabled={likeOff} aria-pressed={liked}>
          {liked ? t('profile.liked') : pending[likeKey] ? t('chat.sending') : t('profile.like')}
        </button>
        {!blocked && <a className="btn btn-secondary" href={`/members/${props.profileId}/chat`}>{t('profile.chat')}</a>}
        {!blocked && <a className="btn btn-outline" href={`/members/${props.profileId}/chat?gift=1`}>{t('profile.gift')}</a>}
      </div>
      {status?.premium && <PremiumOnlyAlert t={t} detail={status.text} />}
      {status && !status.premium && <p className={status.ok ? 'notice' : 'alert alert-danger'} role={status.ok ? 'status' : 'alert'}>{status.text}</p>}
      <div className="action-row secondary">
        <button type="button" className="link-button" onClick={toggleBlock} disabled={pending[`block.${props.profileId}`]}>{blocked ? t('profile.unblock') : t('profile.block')}</button>
        <button type="button" className="link-button" onClick={() => dialog.current?.showModal()}>{t('profile.report')}</button>
      </div>
      <dialog ref={dialog} className="modal" aria-labelledby="report-title">
        <form method="post" className="modal-body" onSubmit={report}>
          <h2 id="report-title">{t('profile.report_title', { name: props.name })}</h2>
          <div className="field">
            <label htmlFor="f-reason">{t('profile.report_reason')}</label>
            <select id="f-reason" name="reason" required defaultValue="fake">
              {REPORT_REASONS.map((r) => <option key={r} value={r}>{t(`report_reason.${r}`)}</option>)}
            </select>
          </div>
          <div className="field">
            <label htmlFor="f-details">{t('profile.report_details')}</label>
            <textarea id="f-details" name="details" rows={3} maxLength={1000} />
          </div>
          <div className="modal-actions">
            <button type="button" className="btn btn-ghost" onClick={() => dialog.current?.close()}>{t('common.cancel')}</button>
            <button type="submit" className="btn btn-primary" disabled={pending[`report.${props.profileId}`]}>
              {pending[`report.${props.profileId}`] ? t('chat.sending') : t('profile.report_send')}
            </button>
          </div>
        </form>
      </dialog>
    </div>
  );
}

/** The island as the page hydrates it (`hydrateIsland`), its inputs from the page's island data. */
export const ProfileActionsIsland = withIslandData(ProfileActions);
