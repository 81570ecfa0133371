import type { Kysely, Transaction } from 'kysely';
import type { CreditLedgerTable, Database } from '../db/schema';
import { preparedQuery } from '../db/database';

export class InsufficientCreditsError extends Error {
  constructor() {
    super('insufficient credits');
  }
}

/**
 * Changes a member's credits by `delta` and writes the ledger row, in the caller's transaction.
 * The update only applies while the balance stays ≥ 0, so racing spenders cannot both win;
 * the (user, idempotency_key) unique index makes grants happen once.
 * Returns the new balance, or null when this key was already applied. `newKey`: the key names a row the
 * caller inserted in this very transaction (a new message's id), so no earlier entry can have it and
 * the lookup is skipped — the unique index still refuses a second entry.
 */
export async function applyCredits(
  trx: Transaction<Database> | Kysely<Database>,
  entry: { userId: number; delta: number; reason: CreditLedgerTable['reason']; key: string; now: number; newKey?: boolean },
): Promise<number | null> {
  const done = entry.newKey ? undefined : await trx
    .selectFrom('credit_ledger')
    .select('id')
    .where('user_id', '=', entry.userId)
    .where('idempotency_key', '=', entry.key)
    .executeTakeFirst();
  if (done) return null;
  const updated = (await chargeCredits(trx, entry.delta, entry.userId)).rows[0];
  if (!updated) throw new InsufficientCreditsError();
  await insertLedgerEntry(trx, entry.userId, entry.delta, entry.reason, entry.key, updated.credits, entry.now);
  return updated.credits;
}

// Prepared once (src/server/db/database.ts): every chat send, gift and purchase runs them.
const chargeCredits = preparedQuery((trx, delta: number, userId: number) => trx
  .updateTable('users')
  .set((eb) => ({ credits: eb('credits', '+', delta) }))
  .where('id', '=', userId)
  .where((eb) => eb('credits', '+', delta), '>=', 0)
  .returning('credits'), [-720001, -720002]);
const insertLedgerEntry = preparedQuery((trx, userId: number, delta: number, reason: CreditLedgerTable['reason'], key: string, balance: number, now: number) => trx
  .insertInto('credit_ledger')
  .values({ user_id: userId, delta, reason, idempotency_key: key, balance_after: balance, created_at: now }), [-720011, -720012, '\u0000reason' as CreditLedgerTable['reason'], '\u0000key', -720013, -720014]);
