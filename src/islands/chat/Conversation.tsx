import { useStore } from '@nanostores/react';
import type { TFunction } from 'i18next';
import { Fragment, type MouseEvent, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { resendActivation } from '../../core/accounts/actions';
import {
  blockPartner, type ChatNotice, type ConversationState, clearError, loadOlder, type PendingMessage, reportPartner, sendGift, sendImage,
  sendText, setDraft, unblockPartner,
} from '../../core/chat/conversation.store';
import { type ImageCover, imageCover } from '../../core/chat/image-safety';
import { $user } from '../../core/session/store';
import { $settledPrompts, moneyTipMessage, promptFlags, settlePrompt } from '../../core/chat/safety.store';
import type { ChatMessage } from '../../shared/chat.contract';
import type { TextFlag } from '../../shared/safety.contract';
import { giftImage } from '../../shared/gifts';
import { useHydrated } from '../shared/useHydrated';
import { GiftPicker, IcebreakerModal, ImageViewer, ReportDialog } from './ChatModals';
import { Composer } from './Composer';
import { dayOf, thumbUrl, timeOf } from './format';
import { useMenu } from '../shared/useMenu';
import { Icon } from './icons';
import { FictionalIcon } from '../shared/FictionalIcon';

interface Props {
  t: TFunction;
  locale: string;
  state: ConversationState;
  credits: number | null;
  fictional: { icon: string; label: string; warning?: string };
  openGiftAtStart: boolean;
  onBack: (event: MouseEvent<HTMLAnchorElement>) => void;
  /** A message created the conversation (it had no id before). */
  onCreated: (conversationId: number) => void;
}

/** Refusals that come with a way out. */
const NOTICE_LINKS: Record<string, { href: string; key: string }> = {
  insufficient_credits: { href: '/credits', key: 'chat.buy_credits' },
  conversation_limit: { href: '/premium', key: 'nav.get_premium' },
};

type Bubble = { type: 'message'; message: ChatMessage } | { type: 'pending'; pending: PendingMessage };

/** One conversation: header with partner, history (older on scroll up), notices and the composer. */
export function Conversation({ t, locale, state, credits, fictional, openGiftAtStart, onBack, onCreated }: Props) {
  const history = useRef<HTMLDivElement>(null);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const menu = useMenu();
  const [gifts, setGifts] = useState(openGiftAtStart);
  const [icebreakers, setIcebreakers] = useState(false);
  const [report, setReport] = useState<{ messageId?: number } | null>(null);
  const [viewer, setViewer] = useState<string | null>(null);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [resent, setResent] = useState<'idle' | 'busy' | 'done'>('idle');
  const partner = state.profile;
  const key = state.key;
  const blocked = state.blocked_reason !== null;
  const hydrated = useHydrated();
  const showExplicit = useStore($user)?.show_explicit_images === true;

  // Keep the view: at the bottom while the member is there (new messages, images loading, the
  // composer growing), and still when older messages are added on top.
  const firstId = state.messages[0]?.id ?? null;
  const count = state.messages.length + state.pending.length;
  const stick = useRef(true);
  const before = useRef<{ height: number; firstId: number | null }>({ height: 0, firstId: null });
  const toBottom = useCallback(() => {
    const el = history.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, []);
  useLayoutEffect(() => {
    const el = history.current;
    if (!el) return;
    const memo = before.current;
    if (memo.firstId !== null && firstId !== null && firstId < memo.firstId) el.scrollTop += el.scrollHeight - memo.height;
    else if (count > 0) toBottom();
    before.current = { height: el.scrollHeight, firstId };
  }, [count, firstId, toBottom]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-observe the bubbles whenever their number changes.
  useEffect(() => {
    const el = history.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(toBottom);
    observer.observe(el);
    for (const child of el.children) observer.observe(child);
    return () => observer.disconnect();
  }, [toBottom, count]);

  useEffect(() => {
    setStatus(null);
    if (window.matchMedia('(min-width: 992px)').matches) textarea.current?.focus({ preventScroll: true });
  }, []);

  const onScroll = () => {
    const el = history.current;
    if (!el) return;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    before.current = { height: el.scrollHeight, firstId };
    if (el.scrollTop < 120 && state.has_more && !state.loadingOlder) void loadOlder(key);
  };

  const done = (id: number | null) => { if (id !== null && state.id === null) onCreated(id); };
  const send = async (confirmed = false) => {
    stick.current = true;
    done(await sendText(key, { confirmed }));
  };
  const settled = useStore($settledPrompts);
  const moneyTip = moneyTipMessage(state.messages, state.own_profile_id);
  // "Does this bother you?" → Report: one tap files a report with the message attached.
  const reportFlagged = async (messageId: number) => {
    const notice = await reportPartner(key, 'scam', '', messageId);
    if (!notice || notice.code === 'already_reported') settlePrompt(messageId);
    show(notice, t('safety.reported'));
  };
  const closeGifts = () => {
    setGifts(false);
    // Opened with the page (a profile's "Send a gift": /members/{id}/chat?gift=1) it had nothing to give focus back
    // to, and focus stayed on the closed picker's button or fell to the page: the composer takes it.
    const active = document.activeElement;
    if (!active || active === document.body || active.closest('dialog:not([open])')) textarea.current?.focus();
  };
  const pickGift = async (giftId: string) => {
    setGifts(false);
    stick.current = true;
    done(await sendGift(key, giftId));
  };
  const pickImage = async (file: File) => {
    stick.current = true;
    done(await sendImage(key, file));
  };
  const pickLine = (line: string) => {
    setDraft(key, state.draft.trim() ? `${state.draft.trim()} ${line}` : line);
    setIcebreakers(false);
    requestAnimationFrame(() => textarea.current?.focus({ preventScroll: true }));
  };
  const show = (notice: ChatNotice | null, okText: string) =>
    setStatus(notice ? { ok: false, text: notice.message ?? t('error.try_later') } : { ok: true, text: okText });
  const toggleBlock = async () => {
    menu.close(true);
    if (state.blocked_reason === 'blocked') show(await unblockPartner(key), t('profile.unblocked', { name: partner.name }));
    else show(await blockPartner(key), t('profile.blocked_done', { name: partner.name }));
  };
  const submitReport = async (reason: string, details: string) => {
    const messageId = report?.messageId;
    setReport(null);
    show(await reportPartner(key, reason, details, messageId), t('profile.reported'));
  };
  const resend = async () => {
    setResent('busy');
    try {
      await resendActivation();
      setResent('done');
    } catch {
      setResent('idle');
    }
  };

  const bubbles: Bubble[] = [
    ...state.messages.map((message) => ({ type: 'message' as const, message })),
    ...state.pending.map((pending) => ({ type: 'pending' as const, pending })),
  ];
  const link = state.error ? NOTICE_LINKS[state.error.code] : undefined;

  return (
    <section className="conversation" aria-labelledby="conversation-name" data-conversation-key={key}>
      <header className="conversation-head">
        <a className="btn btn-ghost chat-back" href="/chats" onClick={onBack} aria-label={t('chat.back')} title={t('chat.back')}>
          <Icon name="back" />
        </a>
        <a className="conversation-partner" href={`/members/${partner.id}`} title={t('chat.open_profile', { name: partner.name })}>
          <img className="chat-avatar" src={thumbUrl(partner.thumb)} alt="" width="44" height="44" />
          <span className="conversation-partner-text">
            <span id="conversation-name" className="conversation-name">
              {partner.name}
              {partner.fictional && <FictionalIcon icon={fictional.icon} label={fictional.label} />}
            </span>
            <span className="conversation-meta">{t('members.age', { age: partner.age })}{partner.city ? ` · ${partner.city}` : ''}</span>
          </span>
        </a>
        <div className="conversation-actions">
          <button type="button" className="btn btn-ghost" aria-controls="conversation-menu" {...menu.buttonProps}
            aria-label={t('chat.actions')} title={t('chat.actions')}>
            <Icon name="more" />
          </button>
          {menu.open && (
            <div id="conversation-menu" className="dropdown-menu dropdown-end" role="menu" aria-label={t('chat.actions')} {...menu.menuProps}>
              <button type="button" role="menuitem" tabIndex={-1} className="menu-item" onClick={() => { menu.close(false); setReport({}); }}>
                <Icon name="flag" size={16} />{t('profile.report')}
              </button>
              <button type="button" role="menuitem" tabIndex={-1} className="menu-item" onClick={toggleBlock}>
                <Icon name="block" size={16} />{state.blocked_reason === 'blocked' ? t('profile.unblock') : t('profile.block')}
              </button>
            </div>
          )}
        </div>
      </header>

      {partner.fictional && fictional.warning && <p className="conversation-fictional">{fictional.icon} {fictional.warning}</p>}
      <div className="conversation-history" ref={history} onScroll={onScroll} role="log" aria-live="polite" aria-labelledby="conversation-name">
        {state.loadingOlder && <p className="history-note" role="status"><span className="spinner" aria-hidden="true" />{t('chat.loading_older')}</p>}
        {!state.has_more && state.messages.length > 0 && <p className="history-note">{t('chat.history_start', { name: partner.name })}</p>}
        {bubbles.length === 0 && (
          <div className="history-empty">
            <img className="history-empty-photo" src={thumbUrl(partner.thumb)} alt="" width="96" height="96" />
            <p className="chat-empty-title">{t('chat.empty_title', { name: partner.name })}</p>
            <p className="field-hint">{t('chat.empty_hint')}</p>
            {!blocked && (
              <div className="history-empty-actions">
                <button type="button" className="btn btn-outline" onClick={() => setIcebreakers(true)}><Icon name="spark" size={18} />{t('chat.icebreakers')}</button>
                <button type="button" className="btn btn-outline" onClick={() => setGifts(true)}><Icon name="gift" size={18} />{t('chat.send_gift')}</button>
              </div>
            )}
          </div>
        )}
        {bubbles.map((bubble, index) => {
          const at = bubble.type === 'message' ? bubble.message.created_at : bubble.pending.created_at;
          const previous = bubbles[index - 1];
          const previousAt = previous ? (previous.type === 'message' ? previous.message.created_at : previous.pending.created_at) : null;
          const newDay = previousAt === null || new Date(previousAt).toDateString() !== new Date(at).toDateString();
          return (
            <Fragment key={bubble.type === 'message' ? bubble.message.id : bubble.pending.client_id}>
              {newDay && hydrated && <p className="history-day"><span>{dayOf(at, locale)}</span></p>}
              {bubble.type === 'message'
                ? <MessageBubble t={t} locale={locale} hydrated={hydrated} message={bubble.message} mine={bubble.message.sender_profile_id === state.own_profile_id}
                    cover={imageCover(bubble.message, state.own_profile_id, showExplicit, hydrated ? Date.now() : bubble.message.created_at)}
                    onOpenImage={setViewer} onReport={(id) => setReport({ messageId: id })} />
                : <PendingBubble t={t} pending={bubble.pending} />}
              {hydrated && bubble.type === 'message' && bubble.message.sender_profile_id !== state.own_profile_id && (
                <SafetyPrompt t={t} messageId={bubble.message.id} flags={promptFlags(bubble.message, settled)} tip={moneyTip === bubble.message.id}
                  onReport={reportFlagged} onFine={settlePrompt} />
              )}
            </Fragment>
          );
        })}
      </div>

      <div className="conversation-foot">
        {status && <p className={status.ok ? 'notice' : 'alert alert-danger'} role={status.ok ? 'status' : 'alert'}>{status.text}</p>}
        {state.blocked_reason && (
          <div className="alert chat-blocked" role="status" data-reason={state.blocked_reason}>
            <span>{t(`chat.reason_${state.blocked_reason}`, { name: partner.name })}</span>
            {state.blocked_reason === 'blocked' && <button type="button" className="link-button" onClick={toggleBlock}>{t('profile.unblock')}</button>}
          </div>
        )}
        {state.self_unconfirmed && (
          <div className="alert" role="status" data-self-unconfirmed>
            <span>{t('chat.self_unconfirmed', { name: partner.name })}</span>{' '}
            {resent === 'done' ? <span>{t('activation.resent')}</span> : (
              <button type="button" className="link-button" disabled={resent === 'busy'} onClick={resend}>{t('activation.resend')}</button>
            )}
          </div>
        )}
        {state.error?.code === 'safety_confirm' && (
          <div className="alert safety-confirm" role="alert" data-error={state.error.code}>
            <span>{state.error.message ?? t('error.try_later')}</span>
            <span className="safety-actions">
              <button type="button" className="btn btn-secondary btn-sm" onClick={() => void send(true)}>{t('safety.send_anyway')}</button>
              <button type="button" className="btn btn-outline btn-sm" onClick={() => { clearError(key); textarea.current?.focus(); }}>{t('safety.edit')}</button>
            </span>
          </div>
        )}
        {state.error && state.error.code !== 'safety_confirm' && (
          <div className="alert alert-danger chat-error" role="alert" data-error={state.error.code}>
            <span>{state.error.message ?? t('error.try_later')}</span>
            {link && <a className="btn btn-secondary btn-sm" href={link.href}>{t(link.key)}</a>}
            <button type="button" className="btn btn-ghost btn-sm" aria-label={t('common.close')} onClick={() => clearError(key)}><Icon name="close" size={16} /></button>
          </div>
        )}
        <Composer t={t} locale={locale} state={state} credits={credits} disabled={blocked} textarea={textarea}
          onDraft={(text) => setDraft(key, text)} onSend={send} onImage={pickImage}
          onGift={() => setGifts(true)} onIcebreaker={() => setIcebreakers(true)} />
      </div>

      <GiftPicker t={t} open={gifts && !blocked} name={partner.name} onClose={closeGifts} onPick={pickGift} />
      <IcebreakerModal t={t} open={icebreakers} name={partner.name} onClose={() => setIcebreakers(false)} onPick={pickLine} />
      <ReportDialog t={t} open={report !== null} name={partner.name} onClose={() => setReport(null)} onSubmit={submitReport} />
      <ImageViewer t={t} src={viewer} onClose={() => setViewer(null)} />
    </section>
  );
}

interface BubbleProps {
  t: TFunction;
  hydrated: boolean;
  locale: string;
  message: ChatMessage;
  mine: boolean;
  /** Why the image is blurred (docs/safety-images.md), or null. */
  cover: ImageCover | null;
  onOpenImage: (src: string) => void;
  onReport: (messageId: number) => void;
}

function MessageBubble({ t, hydrated, locale, message, mine, cover, onOpenImage, onReport }: BubbleProps) {
  const [revealed, setRevealed] = useState(false);
  const blurred = cover !== null && !revealed;
  return (
    <div className={`bubble-row ${mine ? 'mine' : 'theirs'}`} data-message-id={message.id} data-kind={message.kind}>
      <div className={`bubble bubble-${message.kind}`}>
        {message.kind === 'text' && <p className="bubble-text">{message.text}</p>}
        {message.kind === 'gift' && message.gift && (
          <figure className="gift-figure">
            <img src={giftImage(message.gift)} alt="" width="96" height="96" />
            <figcaption>{t('chat.gift_label', { gift: t(`gift.${message.gift}`) })}</figcaption>
          </figure>
        )}
        {message.kind === 'image' && message.image && (blurred ? (
          <div className="bubble-photo blurred" data-image-cover={cover}>
            <img className="photo-blur" src={message.image.thumb} alt="" width={Math.min(240, message.image.width)}
              height={Math.round(Math.min(240, message.image.width) * (message.image.height / Math.max(1, message.image.width)))} loading="lazy" />
            <div className="photo-cover">
              <Icon name="eye-off" size={22} />
              <p>{t(`chat.image_cover_${cover}`)}</p>
              <button type="button" className="btn btn-secondary btn-sm" onClick={() => setRevealed(true)}>{t('chat.image_view')}</button>
            </div>
          </div>
        ) : (
          <button type="button" className="bubble-photo" onClick={() => onOpenImage(message.image?.full ?? '')} aria-label={t('chat.image_open')}>
            <img src={message.image.thumb} alt={t('chat.image_alt')} width={Math.min(240, message.image.width)}
              height={Math.round(Math.min(240, message.image.width) * (message.image.height / Math.max(1, message.image.width)))} loading="lazy" />
          </button>
        ))}
        <span className="bubble-time">{hydrated && <time dateTime={new Date(message.created_at).toISOString()}>{timeOf(message.created_at, locale)}</time>}</span>
      </div>
      {!mine && (
        <button type="button" className="btn btn-ghost bubble-report" aria-label={t('chat.report_message')} title={t('chat.report_message')} onClick={() => onReport(message.id)}>
          <Icon name="flag" size={14} />
        </button>
      )}
    </div>
  );
}

interface SafetyPromptProps {
  t: TFunction;
  messageId: number;
  flags: TextFlag[];
  /** The money safety tip goes here (once per conversation). */
  tip: boolean;
  onReport: (messageId: number) => void;
  onFine: (messageId: number) => void;
}

/** Under a received flagged message: "Does this bother you?" with Report and "It's fine", and the money tip. */
function SafetyPrompt({ t, messageId, flags, tip, onReport, onFine }: SafetyPromptProps) {
  if (flags.length === 0 && !tip) return null;
  return (
    <div className="safety-prompt-row" data-safety-for={messageId}>
      {flags.length > 0 && (
        <div className="safety-prompt" role="group" aria-label={t('safety.prompt')}>
          <p className="safety-question">{t('safety.prompt')}</p>
          {flags.map((flag) => <p key={flag} className="safety-reason">{t(`safety.flag_${flag}`)}</p>)}
          <span className="safety-actions">
            <button type="button" className="btn btn-secondary btn-sm" onClick={() => onReport(messageId)}><Icon name="flag" size={14} />{t('safety.report')}</button>
            <button type="button" className="btn btn-outline btn-sm" onClick={() => onFine(messageId)}>{t('safety.fine')}</button>
          </span>
        </div>
      )}
      {tip && <p className="safety-tip" role="note">{t('safety.money_tip')}</p>}
    </div>
  );
}

function PendingBubble({ t, pending }: { t: TFunction; pending: PendingMessage }) {
  return (
    <div className="bubble-row mine pending" data-pending={pending.client_id} data-kind={pending.kind}>
      <div className={`bubble bubble-${pending.kind}`}>
        {pending.kind === 'text' && <p className="bubble-text">{pending.text}</p>}
        {pending.kind === 'gift' && pending.gift && (
          <figure className="gift-figure">
            <img src={giftImage(pending.gift)} alt="" width="96" height="96" />
            <figcaption>{t('chat.gift_label', { gift: t(`gift.${pending.gift}`) })}</figcaption>
          </figure>
        )}
        {pending.kind === 'image' && (
          <span className="bubble-photo uploading">
            {pending.preview && <img src={pending.preview} alt="" width="240" />}
            <progress max={100} value={pending.progress ?? 0} aria-label={t('chat.uploading', { percent: pending.progress ?? 0 })} />
          </span>
        )}
        <span className="bubble-time">{pending.kind === 'image' ? t('chat.uploading', { percent: pending.progress ?? 0 }) : t('chat.sending')}</span>
      </div>
    </div>
  );
}
