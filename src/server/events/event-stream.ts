import type { AppContext } from '../app-context';
import type { BusEvent } from './bus';
import { eventsSince } from './events.service';

/** A comment line this often keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 25_000;
/** Reconnect delay the browser is told to use after a dropped stream. */
export const RECONNECT_MS = 3000;

/** Where a stream's frames go: straight into the node response (server) or Hono's stream (in-process tests). */
export interface EventSink {
  write(chunk: string): void;
  /** Ends the response (a draining process sends its streams away); without it the stream is only released. */
  end?(): void;
}

/** An open stream: `ready` settles once live events flow; `close` releases everything it holds. */
export interface EventStream {
  ready: Promise<void>;
  close(): void;
}

/** One SSE frame. Event data is JSON (no raw line breaks); a break would still be split into data lines. */
export function sseFrame(id: number | null, event: string, data: string, retry?: number): string {
  let frame = id === null ? '' : `id: ${id}\n`;
  frame += `event: ${event}\n`;
  frame += data.includes('\n') ? data.split('\n').map((line) => `data: ${line}\n`).join('') : `data: ${data}\n`;
  if (retry !== undefined) frame += `retry: ${retry}\n`;
  return `${frame}\n`;
}

// One timer for every open stream of the process, rather than one per stream (heap and timers at 10k streams).
const beating = new Set<EventSink>();
let heartbeat: ReturnType<typeof setInterval> | undefined;
function startBeating(sink: EventSink) {
  beating.add(sink);
  if (heartbeat) return;
  heartbeat = setInterval(() => {
    for (const each of beating) each.write(': ping\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();
}
function stopBeating(sink: EventSink) {
  beating.delete(sink);
  if (beating.size === 0 && heartbeat) {
    clearInterval(heartbeat);
    heartbeat = undefined;
  }
}

/** Streams open in this process (for tests and benches). */
export const openStreamCount = () => beating.size;

/** Every stream of this process, ready or not, with how to end it (a rolling restart drains them). */
const openStreams = new Map<EventSink, () => void>();
/** Set once the process drains: a stream opened after it is sent away at once. */
let sendingAway: (() => number) | null = null;
/** The frame that tells a browser to reconnect (to another process) after `retryMs`, resuming from its Last-Event-ID. */
const reconnectFrame = (retryMs: number) => sseFrame(null, 'reconnect', '{}', retryMs);

/**
 * Ends every event stream of this process with a reconnect hint (an SSE `retry:` of `retryMs`), and
 * every stream opened from now on right after its headers (`retryMs` is asked for each stream, so they may be spread). Browsers reconnect through the balancer
 * with Last-Event-ID and catch up from the event log (src/server/ops/drain.ts). Answers how many ended.
 */
export function endEventStreams(retryMs: () => number): number {
  sendingAway = retryMs;
  const ending = [...openStreams.entries()];
  for (const [sink, close] of ending) {
    sink.write(reconnectFrame(retryMs()));
    close();
    sink.end?.();
  }
  return ending.length;
}

/**
 * The member's events for one open tab. The bus subscription starts first, then a reconnect
 * (Last-Event-ID) gets what it missed from the event log, so nothing falls between the two;
 * events arriving meanwhile wait in a buffer and follow in id order.
 */
export function openEventStream(app: AppContext, userId: number, resumeFrom: number | null, sink: EventSink): EventStream {
  if (sendingAway !== null) {
    sink.write(reconnectFrame(sendingAway()));
    sink.end?.();
    return { ready: Promise.resolve(), close() {} };
  }
  let closed = false;
  let buffered: BusEvent[] | null = [];
  // Ids replayed from the log, so the same event arriving on the bus is not sent twice. Not a
  // high-water mark: concurrent transactions commit (and publish) out of id order, and skipping
  // every id below the last one sent dropped those events for good (PostgreSQL, bench/chat.ts).
  let replayed: Set<number> | null = null;
  const send = (event: BusEvent) => {
    if (!closed && !replayed?.has(event.id)) sink.write(sseFrame(event.id, event.type, event.data));
  };
  const subscription = app.bus.subscribe(userId, (event) => (buffered ? buffered.push(event) : send(event)));
  // While a stream is open the member counts as on the site in every process: no notification mails.
  const present = app.presence.open(userId);
  const close = () => {
    if (closed) return;
    closed = true;
    openStreams.delete(sink);
    buffered = null;
    subscription.close();
    void app.presence.close(userId);
    stopBeating(sink);
  };
  openStreams.set(sink, close);
  const ready = (async () => {
    await Promise.all([subscription.ready, present]);
    if (closed) return;
    sink.write(sseFrame(null, 'ready', '{}', RECONNECT_MS));
    if (resumeFrom !== null) {
      const missed = await eventsSince(app.db.db, userId, resumeFrom);
      replayed = new Set();
      for (const event of missed) {
        send(event);
        replayed.add(event.id);
      }
    }
    if (closed || !buffered) return;
    // Only events published after the subscription started are buffered: all new to this connection.
    const pending = buffered.sort((a, b) => a.id - b.id);
    buffered = null;
    for (const event of pending) send(event);
    startBeating(sink);
  })();
  return { ready, close };
}

/** Last-Event-ID (header, or `last_event_id` in the query for a first connect) as a number, or null. */
export function resumePoint(header: string | string[] | undefined | null, query: string | null | undefined): number | null {
  const given = (Array.isArray(header) ? header[0] : header) ?? query;
  return given && /^\d{1,15}$/.test(given) ? Number(given) : null;
}

/** The stream's address (SPEC §7). */
export const EVENTS_PATH = '/api/events.php';
