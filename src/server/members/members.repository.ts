import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

export interface ProfileCardData {
  id: number;
  name: string;
  birth_date: string;
  city: string | null;
  fictional: number;
  thumb: string | null;
}

/** Active, visible profiles of a site with their public main photo, most recently active first. */
export function findRecentProfiles(db: Kysely<Database>, siteId: string, opts: { limit: number; excludeUserId?: number; gender?: 'male' | 'female' }) {
  let query = db
    .selectFrom('profiles')
    .leftJoin('photos', (join) => join.onRef('photos.profile_id', '=', 'profiles.id').on('photos.is_main', '=', 1).on('photos.status', '=', 'active'))
    .select(['profiles.id', 'profiles.name', 'profiles.birth_date', 'profiles.city', 'profiles.fictional', 'photos.thumb_filename as thumb'])
    .where('profiles.site_id', '=', siteId)
    .where('profiles.status', '=', 'active')
    .where('profiles.invisible', '=', 0)
    .orderBy('profiles.last_active_at', 'desc')
    .limit(opts.limit);
  const exclude = opts.excludeUserId;
  if (exclude) query = query.where((eb) => eb.or([eb('profiles.user_id', 'is', null), eb('profiles.user_id', '!=', exclude)]));
  if (opts.gender) query = query.where('profiles.gender', '=', opts.gender);
  return query.execute() as Promise<ProfileCardData[]>;
}
