import type { TFunction } from 'i18next';
import { type ChangeEvent, type KeyboardEvent, type RefObject, useRef } from 'react';
import type { ConversationState } from '../../core/chat/conversation.store';
import { money } from './format';
import { Icon } from './icons';

interface Props {
  t: TFunction;
  locale: string;
  state: ConversationState;
  credits: number | null;
  disabled: boolean;
  textarea: RefObject<HTMLTextAreaElement | null>;
  onDraft: (text: string) => void;
  onSend: () => void;
  onImage: (file: File) => void;
  onGift: () => void;
  onIcebreaker: () => void;
}

/** Message box with counter, price hint, Enter to send (Shift+Enter for a new line), photo, gift and opening lines. */
export function Composer({ t, locale, state, credits, disabled, textarea, onDraft, onSend, onImage, onGift, onIcebreaker }: Props) {
  const fileInput = useRef<HTMLInputElement>(null);
  const length = state.draft.length;
  const tooLong = length > state.message_length;
  // Known before typing: a balance that cannot pay for a message (the server refuses it all the same).
  const short = credits !== null && credits < state.message_price;
  const canSend = !disabled && !short && state.draft.trim().length > 0 && !tooLong;
  const uploading = state.pending.some((p) => p.kind === 'image');

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    if (canSend) onSend();
  };
  const onFile = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (file) onImage(file);
  };
  const price = state.message_price > 0 ? t('chat.price', { credits: state.message_price }) : t('chat.price_free');
  const minimum = state.minimum_cost && state.message_price > 0
    ? t('chat.price_money', { amount: money(state.minimum_cost.costs, state.minimum_cost.currency, locale) }) : null;

  return (
    <form className="composer" onSubmit={(e) => { e.preventDefault(); if (canSend) onSend(); }}>
      {short && !disabled && (
        <p className="alert composer-short" role="status" data-short-credits>
          <span>{t('chat.short_credits', { credits, price: state.message_price })}</span>{' '}
          <a className="btn btn-secondary btn-sm" href="/credits">{t('chat.buy_credits')}</a>
        </p>
      )}
      <div className="composer-tools">
        <input ref={fileInput} type="file" accept="image/*" hidden onChange={onFile} tabIndex={-1} />
        <button type="button" className="btn btn-ghost composer-tool" disabled={disabled || uploading} onClick={() => fileInput.current?.click()}
          aria-label={t('chat.send_image')} title={t('chat.photo_price', { credits: state.prices.photo })}>
          <Icon name="image" />
        </button>
        <button type="button" className="btn btn-ghost composer-tool" disabled={disabled} onClick={onGift} aria-label={t('chat.send_gift')} title={t('chat.send_gift')}>
          <Icon name="gift" />
        </button>
        <button type="button" className="btn btn-ghost composer-tool" disabled={disabled} onClick={onIcebreaker} aria-label={t('chat.icebreakers')} title={t('chat.icebreakers')}>
          <Icon name="spark" />
        </button>
      </div>
      <div className="composer-main">
        <label htmlFor="chat-draft" className="visually-hidden">{t('chat.message_label', { name: state.profile.name })}</label>
        <textarea
          ref={textarea} id="chat-draft" className="composer-input" rows={1} value={state.draft} disabled={disabled}
          placeholder={t('chat.placeholder')} aria-describedby="chat-draft-hint chat-draft-count" aria-invalid={tooLong || undefined}
          onChange={(e) => onDraft(e.target.value)} onKeyDown={onKeyDown} enterKeyHint="send"
        />
        <button type="submit" className="btn btn-primary composer-send" disabled={!canSend} aria-label={t('chat.send')}>
          <Icon name="send" size={18} /><span className="composer-send-label">{t('chat.send')}</span>
        </button>
      </div>
      <div className="composer-meta">
        <p id="chat-draft-hint" className="composer-price">
          {price}{minimum && <> ({minimum})</>}
          {credits !== null && <span className="composer-balance" data-credits={credits}> · <span className="composer-balance-text">{t('chat.balance', { credits })}</span></span>}
          <span className="visually-hidden"> · {t('chat.enter_hint')}</span>
        </p>
        <span id="chat-draft-count" className="composer-count" data-over={tooLong || undefined}>
          <span aria-hidden="true">{length}/{state.message_length}</span>
          <span className="visually-hidden">{t('chat.characters', { count: length, max: state.message_length })}</span>
        </span>
      </div>
    </form>
  );
}
