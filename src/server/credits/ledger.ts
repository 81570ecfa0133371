import type { Expression, Kysely, QueryCreator, SqlBool, Transaction } from 'kysely';
import type { CreditLedgerTable, Database } from '../db/schema';
import { onPostgres, preparedQuery, preparedWrite } from '../db/database';

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
  // PostgreSQL: the charge and its ledger row in one statement (one round trip instead of two); SQLite
  // has no writing CTEs, and a statement there costs no round trip.
  if (onPostgres(trx)) {
    const recorded = (await chargeAndRecord(trx, [entry.userId], entry.delta, entry.userId, entry.reason, entry.key, entry.now)).rows[0];
    if (!recorded) throw new InsufficientCreditsError();
    return recorded.balance_after;
  }
  const updated = (await chargeCredits(trx, [entry.userId], entry.delta, entry.userId)).rows[0];
  if (!updated) throw new InsufficientCreditsError();
  await insertLedgerEntry(trx, entry.userId, entry.delta, entry.reason, entry.key, updated.credits, entry.now);
  return updated.credits;
}

// Prepared once (src/server/db/database.ts): every chat send, gift and purchase runs them. A charge changes
// only its member's row (`preparedWrite`: other members' cached sessions stay).
const chargeCredits = preparedWrite((trx, delta: number, userId: number) => trx
  .updateTable('users')
  .set((eb) => ({ credits: eb('credits', '+', delta) }))
  .where('id', '=', userId)
  .where((eb) => eb('credits', '+', delta), '>=', 0)
  .returning('credits'), [-720001, -720002]);
const insertLedgerEntry = preparedQuery((trx, userId: number, delta: number, reason: CreditLedgerTable['reason'], key: string, balance: number, now: number) => trx
  .insertInto('credit_ledger')
  .values({ user_id: userId, delta, reason, idempotency_key: key, balance_after: balance, created_at: now }), [-720011, -720012, '\u0000reason' as CreditLedgerTable['reason'], '\u0000key', -720013, -720014]);
/**
 * The charge as a writing CTE (PostgreSQL): the member's row with `delta` applied, only while the balance
 * stays ≥ 0, returning the new balance as `credits` — no row when it is too low. `chargeAndRecord` and the
 * chat send's one statement (`writeMessage` in chat.repository.ts) build on it.
 */
export function chargeCte(db: Kysely<Database>, delta: number, userId: number) {
  return db.updateTable('users')
    .set((eb) => ({ credits: eb('credits', '+', delta) }))
    .where('id', '=', userId)
    .where((eb) => eb('credits', '+', delta), '>=', 0)
    .returning('credits');
}

/**
 * The ledger row of a charge made by `chargeCte` (named `charged` in the query's WITH), inserted only when
 * the charge happened (and `only` holds, when given).
 */
export function ledgerRowFromCharge(
  db: QueryCreator<Database & { charged: { credits: number } }>,
  entry: { userId: number; delta: number; reason: CreditLedgerTable['reason']; key: string; now: number; only?: Expression<SqlBool> },
) {
  return db.insertInto('credit_ledger')
    .columns(['user_id', 'delta', 'reason', 'idempotency_key', 'balance_after', 'created_at'])
    .expression((eb) => {
      const row = eb.selectFrom('charged').select((x) => [
        x.cast<number>(x.val(entry.userId), 'integer').as('user_id'),
        x.cast<number>(x.val(entry.delta), 'integer').as('delta'),
        x.cast<string>(x.val(entry.reason), 'varchar').as('reason'),
        x.cast<string>(x.val(entry.key), 'varchar').as('idempotency_key'),
        'charged.credits',
        x.cast<number>(x.val(entry.now), 'bigint').as('created_at'),
      ]);
      return entry.only ? row.where(entry.only) : row;
    });
}

/**
 * PostgreSQL's form of `chargeCredits` + `insertLedgerEntry`: the ledger row is inserted from the charged
 * row, so no row (balance too low) inserts nothing and returns nothing.
 */
const chargeAndRecord = preparedWrite((trx, delta: number, userId: number, reason: CreditLedgerTable['reason'], key: string, now: number) =>
  ledgerRowFromCharge(trx.with('charged', (db) => chargeCte(db as Kysely<Database>, delta, userId)), { userId, delta, reason, key, now })
    .returning('balance_after'), [-720021, -720022, '\u0000reason' as CreditLedgerTable['reason'], '\u0000key', -720023]);
