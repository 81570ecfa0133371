import { type PointerEvent, useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../core/api/client';
import { loadDeck, sendSwipe } from '../../core/swipe/actions';
import { type ProfileCard, photoUrl, type SwipeDeck } from '../../shared/profiles.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Props extends IslandI18n {
  initial: SwipeDeck;
  fictionalIcon: string;
  fictionalLabel: string;
}

const THRESHOLD = 90;

/** A card stack: drag or swipe right (or → / the like button) to like, left (or ←) to pass. */
export function SwipeGame(props: Props) {
  const t = useIslandT(props);
  const [cards, setCards] = useState<ProfileCard[]>(props.initial.cards);
  const [remaining, setRemaining] = useState(props.initial.remaining);
  const [dx, setDx] = useState(0);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const start = useRef<number | null>(null);
  const busy = useRef(false);
  const card = cards[0];

  const decide = useCallback(async (decision: 'like' | 'pass') => {
    if (!card || busy.current) return;
    busy.current = true;
    setMessage(null);
    try {
      const result = await sendSwipe(card.id, decision);
      setRemaining(result.remaining);
      if (result.match) setMessage({ ok: true, text: t('like.match', { name: card.name }) });
      const rest = cards.slice(1);
      if (rest.length === 0 && result.remaining > 0) {
        const deck = await loadDeck();
        setCards(deck.cards);
        setRemaining(deck.remaining);
      } else setCards(rest);
    } catch (err) {
      setMessage({ ok: false, text: err instanceof ApiError ? err.message : t('error.try_later') });
    } finally {
      setDx(0);
      busy.current = false;
    }
  }, [card, cards, t]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
      if (event.key === 'ArrowRight') decide('like');
      if (event.key === 'ArrowLeft') decide('pass');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [decide]);

  const onDown = (event: PointerEvent<HTMLDivElement>) => {
    start.current = event.clientX;
    event.currentTarget.setPointerCapture(event.pointerId);
  };
  const onMove = (event: PointerEvent<HTMLDivElement>) => {
    if (start.current !== null) setDx(event.clientX - start.current);
  };
  const onUp = () => {
    const moved = dx;
    start.current = null;
    if (moved > THRESHOLD) decide('like');
    else if (moved < -THRESHOLD) decide('pass');
    else setDx(0);
  };

  if (!card) {
    return (
      <div className="swipe-empty" role="status">
        <p>{remaining === 0 ? t('swipe.done') : t('swipe.empty')}</p>
        <a className="btn btn-primary" href="/members">{t('members.title')}</a>
      </div>
    );
  }

  return (
    <div className="swipe-game">
      <p className="field-hint">{t('swipe.remaining', { count: remaining })}</p>
      <div
        className="swipe-card" data-card-id={card.id} role="group" aria-roledescription={t('swipe.card')} aria-label={`${card.name}, ${card.age}`}
        style={{ transform: `translateX(${dx}px) rotate(${dx / 20}deg)` }}
        onPointerDown={onDown} onPointerMove={onMove} onPointerUp={onUp} onPointerCancel={() => { start.current = null; setDx(0); }}
      >
        <img src={photoUrl(card.thumb)} alt="" draggable={false} width="320" height="320" />
        <div className="swipe-info">
          <strong>{card.name}, {card.age}</strong>
          {card.fictional && <span title={props.fictionalLabel}> {props.fictionalIcon}</span>}
          {card.city && <span className="card-meta"> · {card.city}</span>}
        </div>
        {dx > 30 && <span className="swipe-stamp like" aria-hidden="true">{t('profile.like')}</span>}
        {dx < -30 && <span className="swipe-stamp pass" aria-hidden="true">{t('swipe.pass')}</span>}
      </div>
      {message && <p className={message.ok ? 'notice' : 'alert alert-danger'} role={message.ok ? 'status' : 'alert'}>{message.text}</p>}
      <div className="swipe-buttons">
        <button type="button" className="btn btn-outline" onClick={() => decide('pass')} aria-keyshortcuts="ArrowLeft">{t('swipe.pass')}</button>
        <a className="btn btn-ghost" href={`/members/${card.id}`}>{t('swipe.open')}</a>
        <button type="button" className="btn btn-primary" onClick={() => decide('like')} aria-keyshortcuts="ArrowRight">{t('profile.like')}</button>
      </div>
      <p className="field-hint swipe-keys">{t('swipe.keys')}</p>
    </div>
  );
}
