import { type FormEvent, useRef, useState } from 'react';
import { ApiError } from '../../core/api/client';
import { blockProfile, likeProfile, reportProfile, unblockProfile } from '../../core/profiles/actions';
import { REPORT_REASONS } from '../../shared/profiles.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';
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
  const fail = (err: unknown) => setStatus({
    ok: false, text: err instanceof ApiError ? err.message : t('error.try_later'), premium: err instanceof ApiError && PREMIUM_FEATURE_CODES.has(err.code),
  });

  async function like() {
    try {
      const result = await likeProfile(props.profileId);
      setLiked(true);
      setStatus({ ok: true, text: result.match ? t('like.match', { name: props.name }) : t('like.sent', { name: props.name }) });
    } catch (err) {
      fail(err);
    }
  }
  async function toggleBlock() {
    try {
      if (blocked) await unblockProfile(props.profileId);
      else await blockProfile(props.profileId);
      setBlocked(!blocked);
      setStatus({ ok: true, text: blocked ? t('profile.unblocked', { name: props.name }) : t('profile.blocked_done', { name: props.name }) });
    } catch (err) {
      fail(err);
    }
  }
  async function report(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    try {
      await reportProfile(props.profileId, String(data.get('reason')), String(data.get('details') ?? ''));
      dialog.current?.close();
      setStatus({ ok: true, text: t('profile.reported') });
    } catch (err) {
      fail(err);
    }
  }

  return (
    <div className="profile-actions">
      <div className="action-row">
        <button type="button" className="btn btn-primary" onClick={like} disabled={liked || blocked} aria-pressed={liked}>
          {liked ? t('profile.liked') : t('profile.like')}
        </button>
        {!blocked && <a className="btn btn-secondary" href={`/members/${props.profileId}/chat`}>{t('profile.chat')}</a>}
        {!blocked && <a className="btn btn-outline" href={`/members/${props.profileId}/chat?gift=1`}>{t('profile.gift')}</a>}
      </div>
      {status?.premium && <PremiumOnlyAlert t={t} detail={status.text} />}
      {status && !status.premium && <p className={status.ok ? 'notice' : 'alert alert-danger'} role={status.ok ? 'status' : 'alert'}>{status.text}</p>}
      <div className="action-row secondary">
        <button type="button" className="link-button" onClick={toggleBlock}>{blocked ? t('profile.unblock') : t('profile.block')}</button>
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
            <button type="submit" className="btn btn-primary">{t('profile.report_send')}</button>
          </div>
        </form>
      </dialog>
    </div>
  );
}
