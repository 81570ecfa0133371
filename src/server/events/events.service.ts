import type { Kysely, Transaction } from 'kysely';
import type { ChatEvent } from '../../shared/chat.contract';
import type { Database } from '../db/schema';
import { preparedQuery } from '../db/database';
import type { BusEvent } from './bus';

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
  if (entries.length === 0) return [];
  const rows = entries.map(({ userId, event }) => ({ user_id: userId, type: event.type, data: JSON.stringify(event), created_at: now }));
  // One statement for all rows.
  const values = rows.flatMap((r) => [r.user_id, r.type, r.data, r.created_at]);
  const returned = rows.length === 1 ? (await insertOneEvent(trx, ...(values as [number, string, string, number]))).rows
    : rows.length === 2 ? (await insertTwoEvents(trx, ...(values as EventValues))).rows
    : await trx.insertInto('events').values(rows).returning(['id', 'user_id']).execute();
  return eventsWritten(rows, returned);
}

/**
 * The bus events of rows written to the log, with the ids the insert returned. RETURNING's order is not
 * promised, but ids are given in the order of the rows: each member's ids, ascending, belong to their rows in order.
 */
export function eventsWritten(rows: { user_id: number; type: string; data: string }[], returned: { id: number; user_id: number }[]): BusEvent[] {
  const idsByUser = new Map<number, number[]>();
  for (const { id, user_id } of returned) {
    const ids = idsByUser.get(user_id);
    if (ids) ids.push(id);
    else idsByUser.set(user_id, [id]);
  }
  for (const ids of idsByUser.values()) ids.sort((x, y) => x - y);
  return rows.map((row) => ({ userId: row.user_id, id: idsByUser.get(row.user_id)!.shift()!, type: row.type, data: row.data }));
}

// A chat send writes one or two events (the sender's and the recipient's): prepared once (src/server/db/database.ts).
type EventValues = [number, string, string, number, number, string, string, number];
const eventRow = (userId: number, type: string, data: string, now: number) => ({ user_id: userId, type: type as ChatEvent['type'], data, created_at: now });
const insertOneEvent = preparedQuery((trx, userId: number, type: string, data: string, now: number) => trx
  .insertInto('events').values([eventRow(userId, type, data, now)]).returning(['id', 'user_id']), [-740001, '\u0000type', '\u0000data', -740002]);
const insertTwoEvents = preparedQuery((trx, ...v: EventValues) => trx
  .insertInto('events').values([eventRow(v[0], v[1], v[2], v[3]), eventRow(v[4], v[5], v[6], v[7])]).returning(['id', 'user_id']),
[-740011, '\u0000type1', '\u0000data1', -740012, -740013, '\u0000type2', '\u0000data2', -740014]);

/**
 * Ids are given at insert but transactions commit in any order, so an event with a smaller id
 * may become visible after a larger one was delivered. A resync therefore also replays events
 * written this long before the last one the client saw; the client drops ids it already has.
 */
export const RESYNC_OVERLAP_MS = 5_000;

/** The member's events after `lastId` (and the overlap before it), oldest first: SSE resync with Last-Event-ID. */
export async function eventsSince(db: Q, userId: number, lastId: number, limit = RESYNC_LIMIT): Promise<BusEvent[]> {
  const last = await db.selectFrom('events').select('created_at').where('id', '=', lastId).where('user_id', '=', userId).executeTakeFirst();
  let q = db.selectFrom('events').select(['id', 'type', 'data']).where('user_id', '=', userId);
  q = last
    ? q.where((eb) => eb.or([eb('id', '>', lastId), eb('created_at', '>=', last.created_at - RESYNC_OVERLAP_MS)]))
    : q.where('id', '>', lastId);
  const rows = await q.orderBy('id').limit(limit).execute();
  return rows.map((r) => ({ userId, id: r.id, type: r.type, data: r.data }));
}

/** Drops events older than the retention window (run by the hourly job). */
export async function pruneEvents(db: Q, now: number) {
  await db.deleteFrom('events').where('created_at', '<', now - EVENT_RETENTION_MS).execute();
}
