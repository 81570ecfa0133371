import { useStore } from '@nanostores/react';
import { type MouseEvent, useCallback, useEffect, useState } from 'react';
import { $chats, $chatsStatus, deleteChat, loadChats, setInitialChats } from '../../core/chat/chats.store';
import {
  $openConversation, $openError, $openKey, closeConversation, openConversation, setInitialConversation,
} from '../../core/chat/conversation.store';
import { $user } from '../../core/session/store';
import type { ChatSummary, ChatsResponse, ConversationView } from '../../shared/chat.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';
import { withIslandData } from '../shared/island-data';
import { ChatList } from './ChatList';
import { Conversation } from './Conversation';
import { thumbUrl } from './format';
import { Icon } from './icons';
import './chat.css';

export interface ChatAppProps extends IslandI18n {
  initialChats: ChatsResponse;
  /** The conversation the address names (/chats/{id}, /members/{id}/chat), or null on /chats. */
  initialConversation: ConversationView | null;
  fictional: { icon: string; label: string; warning?: string };
  /** The member's credits when the page was made. */
  credits: number;
  /** /members/{id}/chat?gift=1: open the gift picker at once. */
  openGift?: boolean;
}

const isServer = typeof window === 'undefined';

/** What the server renders: the page's data as the stores would hold it. */
function serverView(props: ChatAppProps) {
  const view = props.initialConversation;
  const key = view ? (view.id !== null ? String(view.id) : `p${view.profile.id}`) : null;
  return {
    chats: props.initialChats.chats,
    chatsStatus: 'ready' as const,
    openKey: key,
    open: view && key ? { ...view, key, pending: [], loadingOlder: false, draft: '', error: null } : null,
    openError: null,
  };
}

const conversationIdInPath = (path: string) => {
  const m = path.match(/^\/chats\/(\d+)\/?$/);
  return m ? Number(m[1]) : null;
};

/**
 * Chats: the list beside the conversation from 992 px up; on phones two screens (/chats the
 * list, /chats/{id} the conversation with a back link). Moves between them without reloading.
 */
export function ChatApp(props: ChatAppProps) {
  const t = useIslandT(props);
  // Stores are per tab: seed them in the browser only (on the server they would be shared by all requests).
  const [seeded] = useState(() => {
    if (isServer) return false;
    setInitialChats(props.initialChats);
    if (props.initialConversation) setInitialConversation(props.initialConversation);
    else closeConversation();
    return true;
  });
  const stores = {
    chats: useStore($chats), chatsStatus: useStore($chatsStatus), openKey: useStore($openKey), open: useStore($openConversation),
    openError: useStore($openError), user: useStore($user),
  };
  const { chats, chatsStatus, openKey, open, openError } = seeded ? stores : serverView(props);
  const credits = seeded ? (stores.user?.credits ?? props.credits) : props.credits;
  const openId = openKey && /^\d+$/.test(openKey) ? Number(openKey) : null;

  // Back and forward between the list and conversations.
  useEffect(() => {
    const onPop = () => {
      const id = conversationIdInPath(location.pathname);
      if (id !== null) void openConversation({ conversation: id });
      else if (location.pathname === '/chats') closeConversation();
    };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  // The page title names the open partner.
  useEffect(() => {
    if (!seeded) return;
    const base = open?.profile.name ? t('chat.title_with', { name: open.profile.name }) : t('chat.title');
    const count = document.title.match(/^\(\d+\+?\)\s/)?.[0] ?? '';
    const site = document.title.split(' · ').slice(1).join(' · ');
    document.title = `${count}${base}${site ? ` · ${site}` : ''}`;
  }, [open?.profile.name, seeded, t]);

  const select = useCallback((id: number, event: MouseEvent<HTMLAnchorElement>) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    if (openId === id) return;
    history.pushState(null, '', `/chats/${id}`);
    void openConversation({ conversation: id });
  }, [openId]);

  const back = (event: MouseEvent<HTMLAnchorElement>) => {
    if (location.pathname.startsWith('/members/')) return;
    event.preventDefault();
    history.pushState(null, '', '/chats');
    closeConversation();
  };

  const remove = async (chat: ChatSummary) => {
    if (!window.confirm(t('chat.delete_confirm', { name: chat.profile.name }))) return;
    const wasOpen = openId === chat.conversation.id;
    if (wasOpen) {
      history.pushState(null, '', '/chats');
      closeConversation();
    }
    await deleteChat(chat.conversation.id, t('error.generic'));
  };

  const created = (id: number) => {
    if (!location.pathname.startsWith('/chats/')) history.replaceState(null, '', `/chats/${id}`);
  };

  const pending = openKey && !open;
  const pendingChat = pending && openId !== null ? chats.find((c) => c.conversation.id === openId) : undefined;

  return (
    <div className="chat-app" data-view={openKey ? 'conversation' : 'list'}>
      <aside className="chat-list-pane" aria-label={t('chat.list_label')}>
        <h1 className="chat-list-title">{t('chat.title')}</h1>
        <ChatList t={t} locale={props.locale} chats={chats} status={chatsStatus} openId={openId} fictional={props.fictional}
          onOpen={select} onDelete={remove} onRetry={() => void loadChats()} />
      </aside>
      <div className="chat-pane">
        {open && (
          <Conversation key={`p${open.profile.id}`} t={t} locale={props.locale} state={open}
            credits={credits} fictional={props.fictional} openGiftAtStart={Boolean(props.openGift)} onBack={back} onCreated={created} />
        )}
        {pending && !openError && (
          <div className="chat-pane-state" role="status">
            {pendingChat && <img className="history-empty-photo" src={thumbUrl(pendingChat.profile.thumb)} alt="" width="96" height="96" />}
            <span className="spinner" aria-hidden="true" />{t('common.loading')}
          </div>
        )}
        {pending && openError && (
          <div className="chat-pane-state" role="alert">
            <p>{openError.message ?? t('error.try_later')}</p>
            <a className="btn btn-outline" href="/chats" onClick={back}>{t('chat.back')}</a>
          </div>
        )}
        {!openKey && (
          <div className="chat-pane-state chat-pick">
            <span className="chat-empty-icon" aria-hidden="true"><Icon name="chat" size={40} /></span>
            <p className="chat-empty-title">{t('chat.pick')}</p>
            <p className="field-hint">{t('chat.pick_hint')}</p>
          </div>
        )}
      </div>
    </div>
  );
}

/** The island as the page hydrates it (`hydrateIsland`), its inputs from the page's island data. */
export const ChatAppIsland = withIslandData(ChatApp);
