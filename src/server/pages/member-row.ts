import { findUserById } from '../accounts/accounts.repository';
import type { User } from '../db/schema';

/**
 * The signed-in member's User row for a page: the row the session lookup read (the node entry passes
 * it; the API's handlers use the same row), else — under `astro dev` — read from the database.
 */
export async function memberRow(locals: App.Locals): Promise<User | undefined> {
  const { user, sessionRow, services } = locals;
  if (!user) return undefined;
  if (sessionRow?.id === user.id) return sessionRow;
  return findUserById(services.app.db.db, user.id);
}
