import { useStore } from '@nanostores/react';
import { useState } from 'react';
import { $likes, $likesStatus, loadLikes, setInitialLikes } from '../../core/likes/likes.store';
import { likeProfile } from '../../core/profiles/actions';
import { $pendingActions, runAction } from '../../core/toast/action.store';
import type { LikedByProfile, LikesResponse, LikeType } from '../../shared/chat.contract';
import { type ProfileCard, photoUrl } from '../../shared/profiles.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';
import { withIslandData } from '../shared/island-data';
import './likes.css';
import { FictionalIcon } from '../shared/FictionalIcon';

export interface LikesPageProps extends IslandI18n {
  type: LikeType;
  initial: LikesResponse;
  fictional: { icon: string; label: string };
}

const TABS: { type: LikeType; key: string; href: string }[] = [
  { type: 'received', key: 'likes.tab_received', href: '/likes' },
  { type: 'given', key: 'likes.tab_given', href: '/likes/given' },
  { type: 'matches', key: 'likes.tab_matches', href: '/likes/matches' },
];
const EMPTY: Record<LikeType, string> = { received: 'likes.empty_received', given: 'likes.empty_given', matches: 'likes.empty_matches' };

const isServer = typeof window === 'undefined';

/** /likes and /likes/{type}: who liked the member (new first), whom they liked, and matches. */
export function LikesPage(props: LikesPageProps) {
  const t = useIslandT(props);
  const [seeded] = useState(() => {
    if (isServer) return false;
    setInitialLikes(props.initial);
    return true;
  });
  const stored = useStore($likes);
  const storedStatus = useStore($likesStatus);
  const likes = seeded ? stored : props.initial;
  const status = seeded ? storedStatus : 'ready';
  const counts: Record<LikeType, number> = { received: likes.liked_by.length, given: likes.likes.length, matches: likes.matches.length };
  const cards: (ProfileCard | LikedByProfile)[] =
    props.type === 'received' ? likes.liked_by : props.type === 'given' ? likes.likes : likes.matches;
  const matched = new Set(likes.matches.map((p) => p.id));
  const pending = useStore($pendingActions);
  async function likeBack(card: ProfileCard) {
    const outcome = await runAction(`like.${card.id}`, () => likeProfile(card.id, 'likes'), { savingToast: false, success: false });
    if (outcome.ok) await loadLikes();
  }

  return (
    <div className="likes-page">
      <nav className="likes-tabs" aria-label={t('likes.tabs')}>
        {TABS.map((tab) => (
          <a key={tab.type} href={tab.href} className="likes-tab" aria-current={tab.type === props.type ? 'page' : undefined}>
            <span className="likes-tab-label">{t(tab.key)}</span>
            {/* The count once: the new likes' badge where there are new ones, else how many. */}
            {!(tab.type === 'received' && likes.new_likes > 0) && <span className="likes-tab-count">{counts[tab.type]}</span>}
            {tab.type === 'received' && likes.new_likes > 0 && <span className="badge" role="img" aria-label={t('nav.new_likes_badge', { count: likes.new_likes })}>{likes.new_likes}</span>}
          </a>
        ))}
      </nav>
      {status === 'error' && cards.length === 0 && (
        <div className="likes-empty" role="alert">
          <p>{t('likes.load_failed')}</p>
          <button type="button" className="btn btn-outline" onClick={() => void loadLikes()}>{t('chat.retry')}</button>
        </div>
      )}
      {status !== 'error' && cards.length === 0 && (
        <div className="likes-empty">
          <span className="likes-empty-icon" aria-hidden="true">
            <svg width="36" height="36" viewBox="0 0 24 24" fill="currentColor" aria-hidden="true"><path d="M20.84 4.61a5.5 5.5 0 0 0-7.78 0L12 5.67l-1.06-1.06a5.5 5.5 0 0 0-7.78 7.78L12 21.23l8.84-8.84a5.5 5.5 0 0 0 0-7.78z" /></svg>
          </span>
          <p>{t(EMPTY[props.type])}</p>
          <a className="btn btn-primary" href="/members">{t('likes.browse')}</a>
        </div>
      )}
      {cards.length > 0 && (
        <ul className="profile-grid likes-grid">
          {cards.map((card) => {
            const fresh = 'like_new' in card && card.like_new;
            return (
              <li key={card.id} className="profile-card like-card" data-new={fresh || undefined} data-profile-id={card.id}>
                <a href={`/likes/m/${card.id}`} className="like-card-photo" aria-label={fresh ? `${card.name} · ${t('likes.new')}` : card.name}>
                  <img src={photoUrl(card.thumb)} alt="" width="320" height="320" loading="lazy" decoding="async" />
                  {fresh && <span className="like-new">{t('likes.new')}</span>}
                </a>
                <div className="card-body">
                  <p className="card-title">
                    <a href={`/likes/m/${card.id}`}>{card.name}</a>
                    {card.fictional && <FictionalIcon icon={props.fictional.icon} label={props.fictional.label} />}
                  </p>
                  <p className="card-meta">{t('members.age', { age: card.age })}{card.city ? ` · ${card.city}` : ''}</p>
                  {props.type === 'received' && (
                    // A like can be answered here: liked back it is a match at once (the match modal shows it).
                    <span className="like-card-actions">
                      {matched.has(card.id) ? <span className="like-card-matched">{t('likes.matched')}</span> : (
                        <button type="button" className="btn btn-primary btn-sm" disabled={Boolean(pending[`like.${card.id}`])} onClick={() => void likeBack(card)}>
                          {t('likes.like_back')}
                        </button>
                      )}
                      <a className="btn btn-outline btn-sm" href={`/members/${card.id}/chat`}>{t('likes.message')}</a>
                    </span>
                  )}
                  {props.type === 'matches' && (
                    <a className="btn btn-secondary btn-sm like-card-message" href={`/members/${card.id}/chat`}>{t('likes.message')}</a>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

/** The island as the page hydrates it (`hydrateIsland`), its inputs from the page's island data. */
export const LikesPageIsland = withIslandData(LikesPage);
