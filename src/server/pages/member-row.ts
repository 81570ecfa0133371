import type { User } from '../db/schema';

/**
 * The signed-in member's User row for a page: the row the session lookup read (the node entry passes
 * it with `user`; the API's handlers use the same row).
 */
export function memberRow(locals: App.Locals): User | undefined {
  return locals.user ? locals.session?.user : undefined;
}
