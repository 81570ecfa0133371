import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetChats, setInitialChats } from '../../src/core/chat/chats.store';
import { $conversations, resetConversations, setInitialConversation } from '../../src/core/chat/conversation.store';
import { $realtimeOpen, connectRealtime } from '../../src/core/chat/realtime';
import { $likeModal, closeLikeModal } from '../../src/core/likes/like-modal.store';
import { resetLikes } from '../../src/core/likes/likes.store';
import { $user } from '../../src/core/session/store';
import { EVENTS_PATH } from '../../src/shared/chat.contract';
import { card, chat, message, user, view } from '../helpers/chat-fixtures';
import { fakeApi } from '../helpers/fake-api';

/** A stand-in for the browser's EventSource that the test drives. */
class FakeSource {
  readyState = 0;
  onerror: (() => void) | null = null;
  closed = false;
  listeners = new Map<string, ((e: { data: string }) => void)[]>();
  constructor(readonly url: string) {}
  addEventListener(type: string, listener: (e: { data: string }) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close() { this.closed = true; }
  emit(type: string, data: unknown, lastEventId = '') { for (const l of this.listeners.get(type) ?? []) l({ data: JSON.stringify({ type, ...(data as object) }), lastEventId } as never); }
}

let api: ReturnType<typeof fakeApi>;
let sources: FakeSource[];
let stop: () => void;
const create = (url: string) => {
  const source = new FakeSource(url);
  sources.push(source);
  return source as never;
};

beforeEach(() => {
  resetChats();
  resetConversations();
  resetLikes();
  closeLikeModal();
  api = fakeApi();
  sources = [];
  $user.set(user({ visible: true } as never));
  vi.stubGlobal('document', { visibilityState: 'hidden' });
  setInitialChats({ chats: [chat(7, 200)], unread_messages: 0 });
  setInitialConversation(view(7, 200));
  stop = connectRealtime(create);
});
afterEach(() => {
  stop();
  expect(api.unexpected).toEqual([]);
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('realtime connection', () => {
  it('listens on the events endpoint and reports when it is open', () => {
    expect(sources.map((s) => s.url)).toEqual([EVENTS_PATH]);
    sources[0].emit('ready', {});
    expect($realtimeOpen.get()).toBe(true);
  });

  it('puts messages, reads, credits and matches into the stores', () => {
    const source = sources[0];
    source.emit('message', { message: message(5, 7, 200), unread_messages: 1 });
    expect($conversations.get()['7'].messages.map((m) => m.id)).toEqual([5]);
    expect($user.get()?.unread_messages).toBe(1);
    source.emit('read', { conversation_id: 7, unread_messages: 0 });
    expect($user.get()?.unread_messages).toBe(0);
    source.emit('credits', { credits: 3 });
    expect($user.get()?.credits).toBe(3);
    source.emit('match', { profile: card(9, 'Cy'), new_likes: 2 });
    expect($likeModal.get()).toEqual({ kind: 'match', profile: card(9, 'Cy') });
    expect($user.get()?.new_likes).toBe(2);
    source.emit('chat_deleted', { conversation_id: 7, unread_messages: 0 });
    expect($conversations.get()['7']).toBeUndefined();
  });

  it('tries again later when the server closed the stream for good, and stops on request', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    sources[0].readyState = 2;
    sources[0].onerror?.();
    expect(sources[0].closed).toBe(true);
    expect($realtimeOpen.get()).toBe(false);
    vi.advanceTimersByTime(30_000);
    expect(sources).toHaveLength(2);
    stop();
    expect(sources[1].closed).toBe(true);
  });

  it('comes back within about a second after an error answer, resuming from the last event it handled', () => {
    stop();
    sources = [];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // The jitter at its largest (+25 %).
    stop = connectRealtime(create, () => 1);
    const first = sources[0];
    first.emit('ready', {});
    first.emit('message', { message: message(5, 7, 200), unread_messages: 1 }, '41');
    first.emit('message', { message: message(6, 7, 200), unread_messages: 2 }, '42');
    // A replayed older event does not move the resume point back.
    first.emit('message', { message: message(5, 7, 200), unread_messages: 2 }, '41');
    // The balancer answered 502 (both processes restarting): the browser gives up on this stream.
    first.readyState = 2;
    first.onerror?.();
    vi.advanceTimersByTime(1_249);
    expect(sources).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sources.map((s) => s.url)).toEqual([EVENTS_PATH, `${EVENTS_PATH}?last_event_id=42`]);
    // Failing again waits twice as long, then four times…
    sources[1].readyState = 2;
    sources[1].onerror?.();
    vi.advanceTimersByTime(2_499);
    expect(sources).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sources).toHaveLength(3);
    // …and a stream that became ready starts over at a second.
    sources[2].emit('ready', {});
    sources[2].readyState = 2;
    sources[2].onerror?.();
    vi.advanceTimersByTime(1_250);
    expect(sources).toHaveLength(4);
    expect($conversations.get()['7'].messages.map((m) => m.id)).toEqual([5, 6]);
  });

  it('waits at most 30 s between tries, however long the server stays away', () => {
    stop();
    sources = [];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    stop = connectRealtime(create, () => 1);
    for (let k = 0; k < 8; k++) {
      const source = sources[sources.length - 1];
      source.readyState = 2;
      source.onerror?.();
      vi.advanceTimersByTime(37_500);
    }
    expect(sources).toHaveLength(9);
    // Without an event handled there is nothing to resume from.
    expect(sources.every((s) => s.url === EVENTS_PATH)).toBe(true);
  });
});
