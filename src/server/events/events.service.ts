import type { Kysely, Transaction } from 'kysely';
import type { ChatEvent } from '../../shared/chat.contract';
import type { Database } from '../db/schema';
import type { BusEvent, EventBus } from './bus';

type Q = Kysely<Database> | Transaction<Database>;

/** How long the event log keeps events for resync after a reconnect. */
export const EVENT_RETENTION_MS = 3 * 24 * 3600_000;
/** At most this many missed events are replayed on reconnect; the client's refresh covers the rest. */
export const RESYNC_LIMIT = 500;

/**
 * Writes events to the members' logs in the caller's transaction; publish the result after commit,
 * so a client never sees an event the database rolled back.
 */
export async function recordEvents(trx: Q, entries: { userId: number; event: ChatEvent }[], now: number): Promise<BusEvent[]> {
  const out: BusEvent[] = [];
  for (const { userId, event } of entries) {
    const data = JSON.stringify(event);
    const row = await trx
      .insertInto('events')
      .values({ user_id: userId, type: event.type, data, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    out.push({ userId, id: row.id, type: event.type, data });
  }
  return out;
}

/** Records and publishes at once, for changes that are not part of a larger transaction. */
export async function emitEvents(db: Kysely<Database>, bus: EventBus, entries: { userId: number; event: ChatEvent }[], now: number) {
  if (entries.length === 0) return;
  const events = await db.transaction().execute((trx) => recordEvents(trx, entries, now));
  await bus.publish(events);
}

/** The member's events after `lastId`, oldest first (SSE resync with Last-Event-ID). */
export async function eventsSince(db: Q, userId: number, lastId: number, limit = RESYNC_LIMIT): Promise<BusEvent[]> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'type', 'data'])
    .where('user_id', '=', userId)
    .where('id', '>', lastId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ userId, id: r.id, type: r.type, data: r.data }));
}

/** The newest event id of a member (a fresh connection starts after it). */
export async function lastEventId(db: Q, userId: number): Promise<number> {
  const row = await db.selectFrom('events').select('id').where('user_id', '=', userId).orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row?.id ?? 0;
}

/** Drops events older than the retention window (run by the hourly job). */
export async function pruneEvents(db: Q, now: number) {
  await db.deleteFrom('events').where('created_at', '<', now - EVENT_RETENTION_MS).execute();
}
