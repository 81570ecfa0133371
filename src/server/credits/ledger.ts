import type { Kysely, Transaction } from 'kysely';
import type { CreditLedgerTable, Database } from '../db/schema';

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
  const updated = await trx
    .updateTable('users')
    .set((eb) => ({ credits: eb('credits', '+', entry.delta) }))
    .where('id', '=', entry.userId)
    .where((eb) => eb('credits', '+', entry.delta), '>=', 0)
    .returning('credits')
    .executeTakeFirst();
  if (!updated) throw new InsufficientCreditsError();
  await trx
    .insertInto('credit_ledger')
    .values({
      user_id: entry.userId, delta: entry.delta, reason: entry.reason, idempotency_key: entry.key,
      balance_after: updated.credits, created_at: entry.now,
    })
    .execute();
  return updated.credits;
}
