import { atom } from 'nanostores';
import { type ChatEvent, EVENTS_PATH } from '../../shared/chat.contract';
import { showMatch } from '../likes/like-modal.store';
import { receiveCreditsEvent } from '../payments/payment-events';
import { receiveLike } from '../likes/likes.store';
import { receiveChatDeleted, receiveImageSafety, receiveMessage, receiveRead } from './conversation.store';

const EVENT_TYPES: ChatEvent['type'][] = ['message', 'read', 'chat_deleted', 'image_safety', 'like', 'match', 'credits'];
/**
 * After the browser gave up on the stream (an error answer, e.g. the balancer's 502 while both processes
 * restart), try again after this much, doubled on each failure up to RECONNECT_MAX_MS, from ±25 % jitter
 * (a restart sends every screen away at once); a stream that became ready starts over.
 */
const RECONNECT_MS = 1_000;
const RECONNECT_MAX_MS = 30_000;

/** Event ids already handled: a resync replays a few seconds of overlap (events commit out of id order). */
const seen = new Set<string>();
const SEEN_MAX = 2_000;
function firstTime(id: string): boolean {
  if (!id) return true;
  if (seen.has(id)) return false;
  seen.add(id);
  if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value as string);
  return true;
}

/** Whether the realtime connection is open. */
export const $realtimeOpen = atom(false);

/** Puts one realtime event into the stores. */
export function dispatchEvent(event: ChatEvent) {
  switch (event.type) {
    case 'message': return receiveMessage(event.message, event.unread_messages);
    case 'read': return receiveRead(event.conversation_id, event.unread_messages);
    case 'chat_deleted': return receiveChatDeleted(event.conversation_id, event.unread_messages);
    case 'image_safety': return receiveImageSafety(event.conversation_id, event.message_id, event.safety);
    case 'like': return receiveLike(event.profile, event.new_likes, false);
    case 'match':
      receiveLike(event.profile, event.new_likes, true);
      return showMatch(event.profile);
    // Payments add paid_user (and the payment's id and status) to the credits event.
    case 'credits': return receiveCreditsEvent(event);
  }
}

type Source = Pick<EventSource, 'addEventListener' | 'close' | 'readyState'> & { onerror: EventSource['onerror'] };

/**
 * Opens the Server-Sent Events stream and feeds every event to the stores. The browser's
 * EventSource reconnects by itself and resends Last-Event-ID, so the server replays what was
 * missed; stores ignore a message they already have. When the browser gives up instead (an error
 * answer), a new stream resumes from the last event seen (`last_event_id`, as the header would).
 * Returns a function that closes it.
 */
export function connectRealtime(create: (url: string) => Source = (url) => new EventSource(url), random: () => number = Math.random): () => void {
  let source: Source | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  let failures = 0;
  /** The id of the newest event handled (ids are numbers, in the order the server wrote the events). */
  let lastId = 0;
  const open = () => {
    source = create(lastId > 0 ? `${EVENTS_PATH}?last_event_id=${lastId}` : EVENTS_PATH);
    // 'ready' comes once the server listens for this member: from then on nothing is missed.
    source.addEventListener('ready', () => {
      failures = 0;
      $realtimeOpen.set(true);
    });
    source.onerror = () => {
      $realtimeOpen.set(false);
      // CLOSED means the browser gave up (an error status): try again soon, then less often.
      if (source?.readyState === 2 && !stopped) {
        source.close();
        const wait = Math.min(RECONNECT_MAX_MS, RECONNECT_MS * 2 ** failures) * (0.75 + random() / 2);
        failures++;
        retry = setTimeout(open, wait);
      }
    };
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (raw) => {
        const id = (raw as MessageEvent<string>).lastEventId;
        if (id && /^\d{1,15}$/.test(id)) lastId = Math.max(lastId, Number(id));
        if (!firstTime(id)) return;
        try {
          dispatchEvent({ ...JSON.parse((raw as MessageEvent<string>).data), type } as ChatEvent);
        } catch {
          // A malformed event is skipped; the periodic refresh repairs any gap.
        }
      });
    }
  };
  open();
  return () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    source?.close();
    $realtimeOpen.set(false);
  };
}
