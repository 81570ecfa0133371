import * as v from 'valibot';
import { MIN_AGE } from './constants';
import { GENDERS } from './profile-options';
import type { ProfileCard } from './profiles.contract';
import { LANDER_TYPES } from './tracking';

const Age = v.pipe(v.string(), v.regex(/^\d{1,2}$/), v.transform(Number), v.minValue(MIN_AGE), v.maxValue(99));

/** GET /api/lander-profiles.php — teaser profiles for a lander (its content's filter as query parameters). */
export const LanderProfilesQuerySchema = v.pipe(
  v.strictObject({
    gender: v.optional(v.picklist(GENDERS)),
    min_age: v.optional(Age),
    max_age: v.optional(Age),
    /** Only profiles in the visitor's country (GeoIP, or `country` when the site serves it). */
    near: v.optional(v.literal('1')),
    country: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{2}$/))),
    /** Members per region of that country too (the map lander). */
    regions: v.optional(v.literal('1')),
    limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,2}$/), v.transform(Number), v.minValue(1), v.maxValue(24)), '12'),
  }),
  v.check((f) => f.min_age === undefined || f.max_age === undefined || f.min_age <= f.max_age, 'search.age_order'),
);
export type LanderProfilesQuery = v.InferOutput<typeof LanderProfilesQuerySchema>;

export interface LanderProfiles {
  profiles: ProfileCard[];
  /** Profiles matching the filter on this site. */
  total: number;
  /** Of those, active in the last ONLINE_WINDOW_MS. */
  online: number;
  /** The shown profiles that are online now. */
  online_ids: number[];
  country: string;
  /** Whether `country` is the visitor's (asked, or placed by GeoIP) rather than the site's first: only then is it "near you". */
  placed: boolean;
  /** Region code → matching members, when asked for. */
  regions: Record<string, number> | null;
}
/** A member counts as online this long after their last activity. */
export const ONLINE_WINDOW_MS = 15 * 60 * 1000;
/** Teaser answers for visitors are cached this long per site and query. */
export const LANDER_PROFILES_TTL_MS = 60 * 1000;

/** POST /api/lander-view.php — a lander was shown (counted in the funnel of the visit's network). */
export const LanderViewSchema = v.strictObject({
  lander: v.picklist(LANDER_TYPES),
  slug: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,63}$/)),
});
