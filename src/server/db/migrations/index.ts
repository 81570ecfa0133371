import type { Migration } from 'kysely';
import type { Dialect } from '../database';
import { createProfiles } from './2026_11_22_0900_create_profiles';
import { createAccounts } from './2026_11_22_1000_create_accounts';

/** Every migration, by name; names sort in the order they run. */
export function allMigrations(dialect: Dialect): Record<string, Migration> {
  return {
    '2026_11_22_0900_create_profiles': createProfiles(dialect),
    '2026_11_22_1000_create_accounts': createAccounts(dialect),
  };
}
