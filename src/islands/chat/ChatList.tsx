import type { TFunction } from 'i18next';
import type { MouseEvent } from 'react';
import type { ChatSummary } from '../../shared/chat.contract';
import { formatBadge } from '../../shared/constants';
import { useHydrated } from '../shared/useHydrated';
import { shortStamp, thumbUrl } from './format';
import { Icon } from './icons';
import { FictionalIcon } from '../shared/FictionalIcon';

interface Props {
  t: TFunction;
  locale: string;
  chats: ChatSummary[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  openId: number | null;
  fictional: { icon: string; label: string; warning?: string };
  onOpen: (id: number, event: MouseEvent<HTMLAnchorElement>) => void;
  onDelete: (chat: ChatSummary) => void;
  onRetry: () => void;
}

function preview(t: TFunction, chat: ChatSummary): string {
  const last = chat.last_message;
  if (!last) return t('chat.no_messages_yet');
  const body = last.kind === 'gift' ? t('chat.preview_gift') : last.kind === 'image' ? t('chat.preview_photo') : (last.text ?? '');
  return last.from_me ? t('chat.preview_you', { text: body }) : body;
}

/** The conversation list: photo, name, fictional mark, last message, unread count, delete. */
export function ChatList({ t, locale, chats, status, openId, fictional, onOpen, onDelete, onRetry }: Props) {
  const hydrated = useHydrated();
  if (status === 'loading' && chats.length === 0) {
    return <div className="chat-list-state" role="status"><span className="spinner" aria-hidden="true" />{t('common.loading')}</div>;
  }
  if (status === 'error' && chats.length === 0) {
    return (
      <div className="chat-list-state" role="alert">
        <p>{t('chat.load_failed')}</p>
        <button type="button" className="btn btn-outline" onClick={onRetry}>{t('chat.retry')}</button>
      </div>
    );
  }
  if (chats.length === 0) {
    return (
      <div className="chat-list-state">
        <span className="chat-empty-icon" aria-hidden="true"><Icon name="chat" size={32} /></span>
        <p className="chat-empty-title">{t('chat.empty_list')}</p>
        <p className="field-hint">{t('chat.empty_list_hint')}</p>
        <a className="btn btn-primary" href="/members">{t('chat.find_members')}</a>
      </div>
    );
  }
  return (
    <ul className="chat-list" aria-label={t('chat.list_label')}>
      {chats.map((chat) => {
        const id = chat.conversation.id;
        const unread = chat.num_unread_messages;
        return (
          <li key={id} className="chat-row" data-unread={unread > 0 || undefined} data-conversation={id}>
            <a className="chat-row-link" href={`/chats/${id}`} aria-current={openId === id ? 'page' : undefined} onClick={(e) => onOpen(id, e)}>
              <img className="chat-avatar" src={thumbUrl(chat.profile.thumb)} alt="" width="48" height="48" loading="lazy" />
              <span className="chat-row-main">
                <span className="chat-row-top">
                  <span className="chat-row-name">{chat.profile.name}</span>
                  {chat.profile.fictional && <FictionalIcon icon={fictional.icon} label={fictional.label} />}
                  {chat.last_message && hydrated && <time className="chat-row-time" dateTime={new Date(chat.last_message.created_at).toISOString()}>{shortStamp(chat.last_message.created_at, locale)}</time>}
                </span>
                <span className="chat-row-preview">{preview(t, chat)}</span>
              </span>
              {unread > 0 && <span className="badge chat-row-badge" role="img" aria-label={t('chat.unread_count', { count: unread })}>{formatBadge(unread)}</span>}
            </a>
            <button type="button" className="btn btn-ghost chat-row-delete" aria-label={t('chat.delete', { name: chat.profile.name })}
              title={t('chat.delete', { name: chat.profile.name })} onClick={() => onDelete(chat)}>
              <Icon name="trash" size={18} />
            </button>
          </li>
        );
      })}
    </ul>
  );
}
