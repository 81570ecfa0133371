import type { User } from '../db/schema';

/**
 * The profile id of a member's User row, for rows the session lookup read together with their profile
 * (src/server/accounts/accounts.repository.ts `findSessionMember`). Those rows are frozen and shared by
 * the requests the session cache serves, so `profileIdOf` answers for them without a query. A member's
 * profile id never changes; a row read any other way is simply not known here.
 */
const known = new WeakMap<object, number>();

export function rememberOwnProfile(user: User, profileId: number) {
  known.set(user, profileId);
}

export function knownOwnProfile(user: Pick<User, 'id'>): number | undefined {
  return known.get(user);
}
