import { sql, type Transaction } from 'kysely';
import type { Dialect } from './database';
import type { Database } from './schema';

/**
 * Serialises one member's counted writes (photos, likes, swipes, free conversations, reports,
 * reset mails) so a count and the insert it guards cannot interleave with a parallel request.
 * PostgreSQL: the member's users row stays locked until the transaction ends (READ COMMITTED
 * then lets the next transaction's count see what the first one inserted). `FOR NO KEY UPDATE`, not
 * `FOR UPDATE`: it serialises the member's own counted writes (and credit updates) just the same, but
 * leaves the key-share locks of foreign-key checks alone — a row inserted for this member by another
 * transaction (a chat event, a like) would otherwise wait for it, and two members writing to each other
 * deadlocked (tests/api/chat.test.ts). SQLite: a process
 * has one connection and Kysely holds it for the whole transaction, so transactions already run
 * one at a time; nothing more is needed.
 */
export async function lockMember(trx: Transaction<Database>, dialect: Dialect, userId: number): Promise<void> {
  if (dialect === 'postgres') await sql`select id from users where id = ${userId} for no key update`.execute(trx);
}

/**
 * Serialises writes about one thing that is not a row of ours (a phone number, an address) across
 * processes: a PostgreSQL advisory lock held until the transaction ends; nothing on SQLite (see above).
 */
export async function lockName(trx: Transaction<Database>, dialect: Dialect, name: string): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(trx);
}
