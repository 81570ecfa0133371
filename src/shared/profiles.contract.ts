import * as v from 'valibot';
import { FREE_LIKES_PER_DAY, MIN_AGE } from './constants';
import { GENDERS } from './profile-options';
import { IdSchema } from './ids';

const Age = v.pipe(v.string(), v.regex(/^\d{1,3}$/), v.transform(Number), v.minValue(MIN_AGE), v.maxValue(99));

/** GET /api/search.php (and /members?…) — search filters as query parameters. */
export const SearchQuerySchema = v.pipe(
  v.object({
    gender: v.optional(v.picklist(GENDERS)),
    country: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{2}$/))),
    countryregion: v.optional(v.pipe(v.string(), v.maxLength(64), v.regex(/^[a-z0-9-]*$/))),
    min_age: v.optional(Age),
    max_age: v.optional(Age),
    page: v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/), v.transform(Number), v.minValue(1), v.maxValue(500))),
  }),
  v.check((f) => f.min_age === undefined || f.max_age === undefined || f.min_age <= f.max_age, 'search.age_order'),
);
export type SearchQuery = v.InferOutput<typeof SearchQuerySchema>;
export const SEARCH_PAGE_SIZE = 24;
/** Fewer results than this, and similar profiles are suggested too. */
export const SIMILAR_THRESHOLD = 6;
/**
 * Searches count their matches up to this many; `numResults` is then SEARCH_COUNT_CAP + 1, shown as
 * "10,000+" (nobody pages through more, and counting every match of a broad filter costs the most).
 */
export const SEARCH_COUNT_CAP = 10_000;

export const REPORT_REASONS = ['fake', 'spam', 'offensive', 'underage', 'scam', 'other'] as const;
export const ReportSchema = v.object({
  profile_id: IdSchema,
  reason: v.picklist(REPORT_REASONS),
  details: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(1000))),
  /** A message of that profile, when reported from the chat. */
  message_id: v.optional(IdSchema),
});
export const ProfileIdSchema = v.object({ profile_id: IdSchema });
export const LIKE_SOURCES = ['profile', 'search', 'match_finder', 'swipe', 'like_modal', 'likes'] as const;
export const LikeSchema = v.object({
  profile_id: IdSchema,
  source: v.optional(v.picklist(LIKE_SOURCES), 'profile'),
});
export { FREE_LIKES_PER_DAY };

/** A profile as it appears in lists. */
export interface ProfileCard {
  id: number;
  name: string;
  age: number;
  city: string | null;
  region: string | null;
  country: string;
  fictional: boolean;
  thumb: string | null;
}
export interface SearchResult {
  pageNumber: number;
  results: ProfileCard[];
  /** Exact up to SEARCH_COUNT_CAP; SEARCH_COUNT_CAP + 1 means more than that. */
  numResults: number;
  similar: ProfileCard[];
  similarCount: number;
  /** Profiles on this page (and in similar) the viewer already liked. */
  likedIds: number[];
}

export const SwipeSchema = v.object({
  profile_id: IdSchema,
  decision: v.picklist(['like', 'pass']),
});
export interface SwipeDeck {
  cards: ProfileCard[];
  remaining: number;
}

/** GET /api/match-finder.php — the search filters plus up to 5 interests (comma separated). */
export const MATCH_FINDER_MAX_INTERESTS = 5;

/** A neutral silhouette shown for a profile without an approved photo. */
export const PHOTO_PLACEHOLDER = '/placeholder-profile.svg';
/** The address of an uploaded photo or avatar, or the placeholder when there is none. */
export const photoUrl = (file: string | null | undefined): string => (file ? `/uploads/${file}` : PHOTO_PLACEHOLDER);
