import { useStore } from '@nanostores/react';
import { useCallback } from 'react';
import { $likeModal, closeLikeModal } from '../../core/likes/like-modal.store';
import type { MemberShellData } from '../../core/members/shell-data';
import { $user } from '../../core/session/store';
import { photoUrl } from '../../shared/profiles.contract';
import { useIslandT } from '../shared/i18n';
import { Modal } from '../shared/Modal';
import './likes.css';
import { FictionalIcon } from '../shared/FictionalIcon';

const photo = photoUrl;

/**
 * The match modal ("It's a match!", both photos, "Send a message") and the like modal ("New like!").
 * A click anywhere closes them except on the partner's photo and the button, which go on (SPEC §2).
 */
export function LikeModals(props: MemberShellData) {
  const t = useIslandT(props);
  const modal = useStore($likeModal);
  const user = useStore($user) ?? props.user;
  const close = useCallback(() => closeLikeModal(), []);
  const profile = modal?.profile;
  const match = modal?.kind === 'match';
  return (
    <Modal open={Boolean(modal)} onClose={close} labelledBy="like-modal-title" className={`like-modal ${match ? 'is-match' : 'is-like'}`} closeOnAnyClick>
      {profile && (
        <div className="like-modal-body">
          <div className="like-modal-photos">
            {match && (
              <img className="like-modal-photo own" src={user.profile.main_image?.match_path ?? photo(null)} alt={t('match.your_photo')} width="128" height="128" />
            )}
            <a className="like-modal-photo-link" href={`/members/${profile.id}`} data-keep-open aria-label={t('match.open_profile', { name: profile.name })}>
              <img className="like-modal-photo partner" src={photo(profile.thumb)} alt={t('match.photo_of', { name: profile.name })} width="128" height="128" />
            </a>
            <span className="like-modal-heart" aria-hidden="true">
              <svg width="28" height="28" viewBox="0 0 24 24" fill="currentColor" aria-hidden="true"><path d="M20.84 4.61a5.5 5.5 0 0 0-7.78 0L12 5.67l-1.06-1.06a5.5 5.5 0 0 0-7.78 7.78L12 21.23l8.84-8.84a5.5 5.5 0 0 0 0-7.78z" /></svg>
            </span>
          </div>
          <h2 id="like-modal-title">{match ? t('match.title') : t('like.new_like')}</h2>
          <p className="like-modal-text">
            {match ? t('match.text', { name: profile.name }) : t('like.modal_text', { name: profile.name })}
            {profile.fictional && <FictionalIcon icon={props.fictional.icon} label={props.fictional.label} />}
          </p>
          {match ? (
            <a className="btn btn-primary like-modal-button" href={`/members/${profile.id}/chat`} data-keep-open data-autofocus>{t('match.send_message')}</a>
          ) : (
            <a className="btn btn-primary like-modal-button" href={`/members/${profile.id}`} data-keep-open data-autofocus>{t('like.modal_button')}</a>
          )}
          <button type="button" className="btn btn-ghost like-modal-close">{t('common.close')}</button>
        </div>
      )}
    </Modal>
  );
}
