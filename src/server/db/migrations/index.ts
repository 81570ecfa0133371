import type { Migration } from 'kysely';
import type { Dialect } from '../database';
import { createProfiles } from './2026_11_22_0900_create_profiles';

/** Every migration, by name; names sort in the order they run. */
export function allMigrations(dialect: Dialect): Record<string, Migration> {
  return {
    '2026_11_22_0900_create_profiles': createProfiles(dialect),
  };
}
