import { type Expression, type ExpressionBuilder, type Kysely, sql, type Transaction } from 'kysely';
import { announceByMail } from '../notifications/notifications.service';
import type { ProfileNote } from '../../shared/profile-options';
import { lockMember } from '../db/locks';
import { ageOn } from '../../shared/accounts.contract';
import { FREE_LIKES_PER_DAY } from '../../shared/constants';
import {
  type ProfileCard, SEARCH_COUNT_CAP, SEARCH_PAGE_SIZE, type SearchQuery, type SearchResult, SIMILAR_THRESHOLD,
} from '../../shared/profiles.contract';
import { hotQuery, jsonArrayFrom, jsonRows, preparedQuery, sqlTrue, tablesGeneration } from '../db/database';
import { type OwnPhoto, ownPhotosQuery } from '../photos/photos.service';
import type { Site } from '../../shared/site.schema';
import type { AppContext } from '../app-context';
import { RuleError } from '../rule-error';
import { newLikesTotal } from '../chat/chat.repository';
import { recordEvents } from '../events/events.service';
import type { Database, Profile, User } from '../db/schema';
import { mainThumb } from '../photos/photos.repository';
import { knownOwnProfile } from './own-profile';

const DAY = 86_400_000;

/** A profiles rule said no. */
export class ProfileRuleError extends RuleError {}

/** YYYY-MM-DD of the day someone turning `years` today was born. */
export function birthDateForAge(now: number, years: number): string {
  const d = new Date(now);
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return d.toISOString().slice(0, 10);
}

/** The viewer's own profile id, or null for visitors. */
export async function profileIdOf(db: Kysely<Database>, user: Pick<User, 'id'> | null): Promise<number | null> {
  if (!user) return null;
  const known = knownOwnProfile(user);
  if (known !== undefined) return known;
  const row = await db.selectFrom('profiles').select('id').where('user_id', '=', user.id).executeTakeFirst();
  return row?.id ?? null;
}

/** Profiles that may appear to this viewer: active, visible, on the site, not blocked either way, not the viewer. */
export function visibleTo(eb: ExpressionBuilder<Database, 'profiles'>, siteId: string, viewerProfileId: number | null) {
  const conditions = [
    eb('profiles.site_id', '=', siteId),
    eb('profiles.status', '=', 'active'),
    eb('profiles.invisible', '=', 0),
  ];
  if (viewerProfileId !== null) {
    conditions.push(eb('profiles.id', '!=', viewerProfileId));
    conditions.push(
      eb.not(
        eb.exists(
          eb.selectFrom('blocks').select('blocks.created_at').where((b) =>
            b.or([
              b.and([b('blocks.blocker_profile_id', '=', viewerProfileId), b('blocks.blocked_profile_id', '=', b.ref('profiles.id'))]),
              b.and([b('blocks.blocker_profile_id', '=', b.ref('profiles.id')), b('blocks.blocked_profile_id', '=', viewerProfileId)]),
            ]),
          ),
        ),
      ),
    );
  }
  return eb.and(conditions);
}

export interface Filters {
  gender?: 'male' | 'female';
  country?: string;
  countryregion?: string;
  min_age?: number;
  max_age?: number;
}

/** The filters as the statements compare them: the ages as birth-date bounds on the day of `now`. */
export interface FilterValues {
  gender?: 'male' | 'female';
  country?: string;
  countryregion?: string;
  /** Born on or before (min_age). */
  bornBy?: string;
  /** Born after (max_age). */
  bornAfter?: string;
}

export function filterValues(f: Filters, now: number): FilterValues {
  return {
    gender: f.gender || undefined, country: f.country || undefined, countryregion: f.countryregion || undefined,
    bornBy: f.min_age !== undefined ? birthDateForAge(now, f.min_age) : undefined,
    bornAfter: f.max_age !== undefined ? birthDateForAge(now, f.max_age + 1) : undefined,
  };
}

/** A profile this viewer may see that matches the filters. */
function matching(eb: ExpressionBuilder<Database, 'profiles'>, siteId: string, viewerProfileId: number | null, v: FilterValues) {
  const conditions = [visibleTo(eb, siteId, viewerProfileId)];
  if (v.gender !== undefined) conditions.push(eb('profiles.gender', '=', v.gender));
  if (v.country !== undefined) conditions.push(eb('profiles.country', '=', v.country));
  if (v.countryregion !== undefined) conditions.push(eb('profiles.region', '=', v.countryregion));
  if (v.bornBy !== undefined) conditions.push(eb('profiles.birth_date', '<=', v.bornBy));
  if (v.bornAfter !== undefined) conditions.push(eb('profiles.birth_date', '>', v.bornAfter));
  return eb.and(conditions);
}

function filtered(db: Kysely<Database>, site: Site, viewerProfileId: number | null, f: Filters, now: number) {
  const values = filterValues(f, now);
  return db.selectFrom('profiles').where((eb) => matching(eb, site.id, viewerProfileId, values));
}

/** How many profiles match, up to SEARCH_COUNT_CAP + 1: the filter index alone answers it, without the photo join. */
function countQuery(db: Kysely<Database>, site: Site, viewerProfileId: number | null, f: Filters, now: number) {
  const matches = filtered(db, site, viewerProfileId, f, now).select('profiles.id').limit(SEARCH_COUNT_CAP + 1);
  return db.selectFrom(matches.as('m')).select((eb) => eb.fn.countAll<number>().as('n'));
}

/** How long a process reuses a search count (a member does not need the exact count of this second). */
export const SEARCH_COUNT_TTL_MS = 15_000;
const countCaches = new WeakMap<AppContext, Map<string, { n: Promise<number>; at: number }>>();

/**
 * Matches of the filters for everyone (no viewer exclusions), capped at SEARCH_COUNT_CAP + 1 and kept
 * per site × filters for SEARCH_COUNT_TTL_MS on the app clock, counted from when the count began. It is
 * a hint, like the age of a count read in another process: a profile write does not drop it (writes
 * drop the shared pages, which serve the listing rules), so a cold count — at most 10,001 index
 * entries, plus a heap visit per entry on PostgreSQL where the visibility map is not set — is paid at
 * most once per site × filters per 15 s per process instead of after every login or profile edit.
 * Concurrent requests for a count share the statement. Who a member may not see is subtracted exactly
 * by the caller (excludedMatches).
 */
async function baseCount(app: AppContext, site: Site, f: Filters, now: number): Promise<{ n: number; at: number }> {
  let cache = countCaches.get(app);
  if (!cache) {
    cache = new Map();
    countCaches.set(app, cache);
  }
  const v = filterValues(f, now);
  const key = [site.id, v.gender ?? '', v.country ?? '', v.countryregion ?? '', v.bornBy ?? '', v.bornAfter ?? ''].join('|');
  const hit = cache.get(key);
  if (hit && now >= hit.at && now - hit.at < SEARCH_COUNT_TTL_MS) return { n: await hit.n, at: hit.at };
  if (cache.size > 5000) cache.clear();
  const entry = { n: countQuery(app.db.db, site, null, f, now).execute().then(([row]) => Number(row.n)), at: now };
  cache.set(key, entry);
  const owned = cache;
  // A failed count is not kept: the next request counts again.
  entry.n.catch(() => {
    if (owned.get(key) === entry) owned.delete(key);
  });
  return { n: await entry.n, at: entry.at };
}

/**
 * Profiles the shared (viewer-less) search lists but this viewer must not see — their own profile and
 * those blocked either way, where they match the filters (`excludedMatchesQuery`: the ids are looked up by
 * primary key, then checked against the filters) — and, in the same statement, which of `likedCandidates`
 * (at most SHOWN_AT_MOST ids: the page the viewer is likely shown) they like: one round trip for what a
 * member's search reads about the member.
 */
async function exclusionsAndLikes(
  app: AppContext, site: Site, viewerProfileId: number, f: Filters, now: number, likedCandidates: number[],
): Promise<{ excluded: number[]; liked: number[] }> {
  const values = filterValues(f, now);
  const slots = [...likedCandidates, ...Array<number>(SHOWN_AT_MOST - likedCandidates.length).fill(0)];
  const { rows } = await exclusionsOfShape(values)(app.db.db, viewerProfileId, site.id, values, slots);
  const excluded: number[] = [];
  const liked: number[] = [];
  for (const row of rows) (row.kind === 'x' ? excluded : liked).push(row.id);
  return { excluded, liked };
}

/** The filters a statement compares (`FilterValues`), in one order: a statement's shape is which of them are set. */
const FILTER_VALUES = ['gender', 'country', 'countryregion', 'bornBy', 'bornAfter'] as const;
/** Placeholders of the filter values in a compiled statement (never real values: see `preparedQuery`). */
const FILTER_PLACEHOLDERS = FILTER_VALUES.map((key) => `\u0000${key}`);
type ExclusionsRunner = (db: Kysely<Database>, viewerProfileId: number, siteId: string, values: FilterValues, likedSlots: number[]) =>
  Promise<{ rows: { id: number; kind: string }[] }>;
const exclusionsByShape = new Map<string, ExclusionsRunner>();
/** Similar profiles shown below too few results, at most. */
const SIMILAR_SHOWN = 12;
/** Ids a search shows at most: a page and the similar profiles below it. */
const SHOWN_AT_MOST = SEARCH_PAGE_SIZE + SIMILAR_SHOWN;
/** Placeholders of the liked candidates' places (`likedAmongQuery`'s). */
const LIKED_PLACEHOLDERS = Array.from({ length: SHOWN_AT_MOST }, (_, k) => -730001 - k);

/**
 * `exclusionsAndLikes`' statement compiled once per shape of the filters (at most 32): building and compiling
 * it with Kysely on every member search cost more than running it (about 75 µs of a `/members` first view).
 * Rows of kind `x` are the excluded matches, of kind `l` the liked candidates.
 */
function exclusionsOfShape(values: FilterValues): ExclusionsRunner {
  const shape = FILTER_VALUES.map((key) => (values[key] === undefined ? '-' : '+')).join('');
  let run = exclusionsByShape.get(shape);
  if (!run) {
    const set = FILTER_VALUES.filter((key) => values[key] !== undefined);
    const query = preparedQuery((db, viewer: number, siteId: string, ...slots: (string | number)[]) => {
      const filterSlots = slots.slice(0, FILTER_VALUES.length) as string[];
      const likedSlots = slots.slice(FILTER_VALUES.length) as number[];
      const filters = Object.fromEntries(set.map((key) => [key, filterSlots[FILTER_VALUES.indexOf(key)]])) as FilterValues;
      return excludedMatchesQuery(db, siteId, viewer, filters).select(sql<string>`'x'`.as('kind'))
        .unionAll(likedAmongQueryOf(db, viewer, likedSlots).select(sql<string>`'l'`.as('kind')));
    }, [-424242, '\u0000site', ...FILTER_PLACEHOLDERS, ...LIKED_PLACEHOLDERS]);
    run = (db, viewer, siteId, v, likedSlots) => query(db, viewer, siteId, ...FILTER_VALUES.map((key, i) => v[key] ?? (FILTER_PLACEHOLDERS[i] as string)), ...likedSlots);
    exclusionsByShape.set(shape, run);
  }
  return run;
}

/** `excludedMatches`' statement (its plan is tested: tests/api/query-plans.test.ts). */
export function excludedMatchesQuery(db: Kysely<Database>, siteId: string, viewerProfileId: number, v: FilterValues) {
  const hidden = db.selectNoFrom((eb) => eb.val(viewerProfileId).as('id'))
    .unionAll(db.selectFrom('blocks').select('blocked_profile_id as id').where('blocker_profile_id', '=', viewerProfileId))
    .unionAll(db.selectFrom('blocks').select('blocker_profile_id as id').where('blocked_profile_id', '=', viewerProfileId));
  // The few ids first, each profile then found by its primary key (`cross join` keeps that order in
  // SQLite; with `id in (…)` it walked the filters' index over every match instead).
  return db.selectFrom(hidden.as('h')).crossJoin('profiles').select('profiles.id')
    .where((eb) => eb.and([eb('profiles.id', '=', eb.ref('h.id')), matching(eb as unknown as ExpressionBuilder<Database, 'profiles'>, siteId, null, v)]));
}

/**
 * How many of these profiles (ids as a JSON array) may be listed on the site: one precompiled statement.
 * It walks the ids and looks each one up by primary key (`cross join` keeps that order in SQLite even
 * without planner statistics; with `id in (…)` an un-analysed database scanned the whole site's index:
 * 1.6 ms at 20,000 profiles instead of 0.02 ms).
 */
const listedCount = {
  sqlite: hotQuery<[string, string], { n: number }>(
    (db, ids, siteId) => db.selectFrom(sql<{ value: number }>`json_each(${ids})`.as('j')).crossJoin('profiles')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => eb.and([eb('profiles.id', '=', eb.ref('j.value')), visibleTo(eb as never, siteId, null)])),
    ['\u0000ids', '\u0000site'],
  ),
  postgres: hotQuery<[string, string], { n: number }>(
    (db, ids, siteId) => db.selectFrom(sql<{ value: string }>`json_array_elements_text(${ids}::json)`.as('j')).crossJoin('profiles')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => eb.and([eb('profiles.id', '=', sql<number>`${eb.ref('j.value')}::int`), visibleTo(eb as never, siteId, null)])),
    ['\u0000ids', '\u0000site'],
  ),
};

/**
 * Runs `check` for one cached value, sharing it between concurrent requests without ever answering
 * a request from a check that started before it arrived: a request that comes while a check is in
 * flight waits for the next one, which starts when that finishes and serves everyone who waited.
 * Under load one statement then re-checks a shared page for many requests, at no loss of freshness.
 */
export function coalescedCheck(slot: { inflight?: Promise<boolean> | null; queued?: Promise<boolean> | null }, check: () => Promise<boolean>): Promise<boolean> {
  if (!slot.inflight) {
    const run = check().finally(() => {
      if (slot.inflight === run) slot.inflight = null;
    });
    slot.inflight = run;
    return run;
  }
  if (!slot.queued) {
    slot.queued = slot.inflight.catch(() => false).then(() => {
      slot.queued = null;
      return coalescedCheck(slot, check);
    });
  }
  return slot.queued;
}

/** Whether every one of these profiles may still be listed on the site (same site, active, not invisible). */
async function allListed(app: AppContext, site: Site, ids: number[]): Promise<boolean> {
  if (ids.length === 0) return true;
  const listed = await listedCount[app.db.dialect](app.db.db, JSON.stringify(ids), site.id);
  return Number(listed?.n) === new Set(ids).size;
}

/** Cache key of a viewer-less search: site × filters × page × day (ages move with the date). */
function sharedKey(site: Site, f: Filters, page: number, now: number): string {
  return [site.id, f.gender ?? '', f.country ?? '', f.countryregion ?? '', f.min_age ?? '', f.max_age ?? '', page, new Date(now).toISOString().slice(0, 10)].join('|');
}

/**
 * SQLite's `PRAGMA data_version` on the app's connection: it moves whenever another connection (another
 * process, a CLI, hand-written SQL) commits. This process's own writes are the write watch's business.
 * Null on PostgreSQL, which has no such cheap signal.
 */
const dataVersionReaders = new WeakMap<object, () => number>();
function othersWriteVersion(app: AppContext): number | null {
  const sqlite = app.db.raw.sqlite;
  if (!sqlite) return null;
  let read = dataVersionReaders.get(sqlite);
  if (!read) {
    const statement = sqlite.prepare('PRAGMA data_version').pluck();
    read = () => statement.get() as number;
    dataVersionReaders.set(sqlite, read);
  }
  return read();
}

interface SharedEntry<T> {
  value: T;
  /** Profiles the value lists: re-checked on every use. */
  ids: number[];
  generation: number;
  /** othersWriteVersion when the value was last read or checked: unchanged, nobody could have hidden a profile since. */
  checkedVersion: number | null;
  /** App-clock time of the oldest data in the value. */
  at: number;
  inflight?: Promise<boolean> | null;
  queued?: Promise<boolean> | null;
}

/**
 * A per-process cache of values built from the viewer-less search, per site × filters × page, for
 * SEARCH_COUNT_TTL_MS on the app clock from the oldest data in it (a visitor's answer carries the shared
 * count: from when that count began); dropped at once when a profile or photo changes through this
 * process (write watch). Who may be listed is checked again on every use — still on the site, active and not
 * invisible — so a profile hidden meanwhile (in any process) never shows: then the value is built afresh.
 * On SQLite the check is skipped while no other connection has committed since the last one passed
 * (data_version) and this process wrote nothing (write watch): then nothing can have changed.
 */
function sharedCache<T>() {
  const caches = new WeakMap<AppContext, Map<string, SharedEntry<T>>>();
  return async (app: AppContext, site: Site, key: string, build: () => Promise<{ value: T; ids: number[]; at?: number }>): Promise<T> => {
    let cache = caches.get(app);
    if (!cache) {
      cache = new Map();
      caches.set(app, cache);
    }
    const generation = tablesGeneration(app.db.writes, ['profiles', 'photos']);
    // Read before the check or the build: a commit elsewhere after this moment moves it again.
    const version = othersWriteVersion(app);
    const now = app.clock.now();
    const hit = cache.get(key);
    if (hit && hit.generation === generation && now >= hit.at && now - hit.at < SEARCH_COUNT_TTL_MS) {
      if (hit.ids.length === 0 || (version !== null && version === hit.checkedVersion)) return hit.value;
      if (await coalescedCheck(hit, () => allListed(app, site, hit.ids))) {
        hit.checkedVersion = version;
        return hit.value;
      }
    }
    const { value, ids, at = now } = await build();
    if (cache.size > 5000) cache.clear();
    if (generation === tablesGeneration(app.db.writes, ['profiles', 'photos'])) cache.set(key, { value, ids, generation, checkedVersion: version, at: Math.min(now, at) });
    return value;
  };
}

const sharedPages = sharedCache<ProfileCard[]>();

/** One page of the shared (viewer-less) search (see sharedCache). */
async function sharedPage(app: AppContext, site: Site, f: Filters, page: number, now: number): Promise<ProfileCard[]> {
  const db = app.db.db;
  return sharedPages(app, site, sharedKey(site, f, page, now), async () => {
    const cards = await runCards(db, filtered(db, site, null, f, now), SEARCH_PAGE_SIZE, (page - 1) * SEARCH_PAGE_SIZE, now);
    return { value: cards, ids: cards.map((c) => c.id) };
  });
}

/**
 * The first page of a member whose own profile or blocked profiles match: the shared order without
 * them (the member's own query orders the same way and only leaves those out), taken from the shared
 * first and second pages — exact while no more than a page of them match. Every member's default
 * search matches their own profile, so this spares most member searches their own statements.
 */
async function sharedFirstPageWithout(app: AppContext, site: Site, f: Filters, now: number, excluded: Set<number>): Promise<ProfileCard[]> {
  const first = await sharedPage(app, site, f, 1, now);
  const kept = first.filter((c) => !excluded.has(c.id));
  if (kept.length < SEARCH_PAGE_SIZE && first.length === SEARCH_PAGE_SIZE) {
    const seen = new Set(kept.map((c) => c.id));
    for (const card of await sharedPage(app, site, f, 2, now)) {
      if (!excluded.has(card.id) && !seen.has(card.id)) kept.push(card);
    }
  }
  return kept.slice(0, SEARCH_PAGE_SIZE);
}

/** A serialised answer. */
export interface SharedBody {
  json: string;
}

const visitorBodies = sharedCache<SharedBody>();

/**
 * The JSON answer of GET /api/search.php for a visitor (no viewer): the same for every visitor of the
 * site, so it is kept serialised (see sharedCache; its results and similar profiles are re-checked on
 * every use). `json` is byte for byte `JSON.stringify(await searchProfiles(app, site, null, filters))`.
 */
export async function visitorSearchBody(app: AppContext, site: Site, filters: SearchQuery): Promise<SharedBody> {
  const now = app.clock.now();
  return visitorBodies(app, site, sharedKey(site, filters, filters.page ?? 1, now), async () => {
    const { result, countAt } = await search(app, site, null, filters);
    // Kept no longer than its count may be: SEARCH_COUNT_TTL_MS from when the count began.
    return { value: { json: JSON.stringify(result) }, ids: [...result.results, ...result.similar].map((c) => c.id), at: countAt };
  });
}

type CardRow = { id: number; name: string; birth_date: string; city: string | null; region: string | null; country: string; fictional: number; thumb: string | null };
/** A profile's card from its row (with the main photo's thumbnail), its age on `now`. */
export const toCard = (now: number) => (r: CardRow): ProfileCard => ({
  id: r.id, name: r.name, age: ageOn(r.birth_date, now), city: r.city, region: r.region, country: r.country, fictional: r.fictional === 1, thumb: r.thumb,
});

/** Ids of one page of matches, in search order; only the profile indexes are needed for this. */
function pageQuery(query: ReturnType<typeof filtered>, limit: number, offset: number) {
  return query
    .select('profiles.id')
    // Profiles with a public photo first, then the most recently active (profiles_rank_idx walks this order).
    .orderBy('profiles.has_photo', 'desc')
    .orderBy('profiles.last_active_at', 'desc')
    .orderBy('profiles.id', 'desc')
    .limit(limit)
    .offset(offset);
}

/** One page of cards: the ids first, then their details and photos for just those rows. */
async function runCards(db: Kysely<Database>, query: ReturnType<typeof filtered>, limit: number, offset: number, now: number) {
  return cardsByIds(db, (await pageQuery(query, limit, offset).execute()).map((r) => r.id), now);
}

/** Cards for these profile ids, in the order given. */
export async function cardsByIds(db: Kysely<Database>, ids: number[], now: number): Promise<ProfileCard[]> {
  if (ids.length === 0) return [];
  const rows = (await db
    .selectFrom('profiles')
    .select(['profiles.id', 'profiles.name', 'profiles.birth_date', 'profiles.city', 'profiles.region', 'profiles.country', 'profiles.fictional'])
    .select((eb) => mainThumb(eb.ref('profiles.id')))
    .where('profiles.id', 'in', ids)
    .execute()) as CardRow[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => (byId.has(id) ? [toCard(now)(byId.get(id) as CardRow)] : []));
}

/** The two statements a search runs (count and first page), compiled, for query plans in the benchmark. */
export function searchStatements(app: AppContext, site: Site, filters: SearchQuery) {
  const now = app.clock.now();
  return {
    count: countQuery(app.db.db, site, null, filters, now).compile(),
    page: pageQuery(filtered(app.db.db, site, null, filters, now), SEARCH_PAGE_SIZE, 0).compile(),
  };
}

/**
 * Member search with the spec's filters; suggests similar profiles when results are few.
 * `ownProfileId`: the viewer's profile id when the caller knows it already (the session lookup has it).
 */
export async function searchProfiles(
  app: AppContext, site: Site, viewer: Pick<User, 'id'> | null, filters: SearchQuery, ownProfileId?: number | null,
): Promise<SearchResult> {
  return (await search(app, site, viewer, filters, ownProfileId)).result;
}

/** searchProfiles, with the app-clock time its shared count began (the count's age bounds the answer's). */
async function search(
  app: AppContext, site: Site, viewer: Pick<User, 'id'> | null, filters: SearchQuery, ownProfileId?: number | null,
): Promise<{ result: SearchResult; countAt: number }> {
  const db = app.db.db;
  const now = app.clock.now();
  const viewerProfileId = viewer === null ? null : ownProfileId !== undefined ? ownProfileId : await profileIdOf(db, viewer);
  const page = filters.page ?? 1;
  const { n: base, at: countAt } = await baseCount(app, site, filters, now);
  // The shared page (kept per site and filters), then what is the viewer's own — their hidden matches and
  // their likes among that page — in one statement.
  const shared = await sharedPage(app, site, filters, page, now);
  const sharedIds = shared.map((c) => c.id);
  const own = viewerProfileId === null
    ? { excluded: [], liked: [] }
    : await exclusionsAndLikes(app, site, viewerProfileId, filters, now, sharedIds);
  const { excluded } = own;
  const numResults = base > SEARCH_COUNT_CAP ? base : Math.max(0, base - excluded.length);
  // Nobody this viewer must not see matches: their results are the shared ones. Otherwise their own.
  const results = excluded.length === 0
    ? shared
    : page === 1 && excluded.length <= SEARCH_PAGE_SIZE
      ? await sharedFirstPageWithout(app, site, filters, now, new Set(excluded))
      : await runCards(db, filtered(db, site, viewerProfileId, filters, now), SEARCH_PAGE_SIZE, (page - 1) * SEARCH_PAGE_SIZE, now);
  let similar: ProfileCard[] = [];
  let similarCount = 0;
  if (numResults < SIMILAR_THRESHOLD) {
    // Same country and gender, any region, five years wider on both sides.
    const relaxed: Filters = {
      gender: filters.gender, country: filters.country,
      min_age: filters.min_age !== undefined ? Math.max(18, filters.min_age - 5) : undefined,
      max_age: filters.max_age !== undefined ? Math.min(99, filters.max_age + 5) : undefined,
    };
    const seen = new Set(results.map((r) => r.id));
    const candidates = await runCards(db, filtered(db, site, viewerProfileId, relaxed, now), SEARCH_PAGE_SIZE + results.length, 0, now);
    similar = candidates.filter((c) => !seen.has(c.id)).slice(0, SIMILAR_SHOWN);
    similarCount = similar.length;
  }
  const shown = [...results, ...similar].map((c) => c.id);
  // The likes read with the exclusions cover the shown profiles when they all come from the shared page.
  const likedIds = viewerProfileId === null || shown.length === 0 ? []
    : shown.every((id) => sharedIds.includes(id)) ? own.liked.filter((id) => shown.includes(id))
      : await likedAmong(db, viewerProfileId, shown);
  return { result: { pageNumber: page, results, numResults, similar, similarCount, likedIds }, countAt };
}

/** The viewer's likes among the shown profiles: one statement compiled once, the unused places given an id no profile has (0). */
const likedAmongQueryOf = (db: Kysely<Database>, viewer: number, ids: number[]) => db
  .selectFrom('likes').select('liked_profile_id as id').where('liker_profile_id', '=', viewer).where('liked_profile_id', 'in', ids);
const likedAmongQuery = preparedQuery((db, viewer: number, ...ids: number[]) => likedAmongQueryOf(db, viewer, ids), [-424242, ...LIKED_PLACEHOLDERS]);
async function likedAmong(db: Kysely<Database>, viewer: number, shown: number[]): Promise<number[]> {
  const liked: number[] = [];
  for (let at = 0; at < shown.length; at += SHOWN_AT_MOST) {
    const ids = shown.slice(at, at + SHOWN_AT_MOST);
    const slots = [...ids, ...Array<number>(SHOWN_AT_MOST - ids.length).fill(0)];
    for (const row of (await likedAmongQuery(db, viewer, ...slots)).rows) liked.push(row.id);
  }
  return liked;
}

/** The public fields of a profile, as a viewer sees them. */
export interface ProfileView
  extends Pick<Profile, 'id' | 'name' | 'gender' | 'sexuality' | 'country' | 'region' | 'city' | 'hair_color' | 'eye_color' | 'body_type' | 'relationship_status' | 'tattoos'> {
  age: number;
  fictional: boolean;
  interests: string[];
  /** The profile notes this site shows (visible_profile_notes), in the site's order; empty notes left out. */
  notes: { key: ProfileNote; text: string }[];
  photos: { id: number; filename: string; thumb_filename: string; status: string; is_main: boolean }[];
  hiddenPhotos: number;
  blockedByMe: boolean;
  liked: boolean;
  own: boolean;
}

/** Visitors and free members see this many photos of someone else; premium members all. */
export const LIMITED_PHOTOS = 1;

/**
 * A profile as this viewer may see it. Null for unknown, deleted, disabled or other-site profiles
 * (and invisible ones, except one's own); throws when the owner blocked the viewer.
 */
export async function profileForViewer(app: AppContext, site: Site, profileId: number, viewer: User | null): Promise<ProfileView | null> {
  const db = app.db.db;
  const viewerProfileId = await profileIdOf(db, viewer);
  const row = (await profileViewQuery(db, profileId, site.id, viewerProfileId ?? NO_PROFILE)).rows[0];
  const own = row !== undefined && row.id === viewerProfileId;
  if (!row || (!own && (row.status !== 'active' || row.invisible === 1))) return null;
  const { blocked_me, blocked_by_me, liked: likedRow, their_like_new, interest_rows, photo_rows, ...profile } = row;
  // Between viewer and profile: blocks both ways, the viewer's like, and whether the profile's like of the
  // viewer is still marked new (all false for a visitor and for the member's own profile).
  const between = viewerProfileId !== null && !own
    ? { blocked_me: sqlTrue(blocked_me), blocked_by_me: sqlTrue(blocked_by_me), liked: sqlTrue(likedRow), their_like_new: sqlTrue(their_like_new) }
    : null;
  if (between?.blocked_me) throw new ProfileRuleError('blocked', 'profile.blocked', 403, { name: profile.name });
  const interests = jsonRows<{ interest: string }>(interest_rows);
  let photos = jsonRows<OwnPhoto>(photo_rows);
  if (!own) photos = photos.filter((p) => p.status === 'active');
  let hiddenPhotos = 0;
  if (!own && !viewer?.paid_user && photos.length > LIMITED_PHOTOS) {
    hiddenPhotos = photos.length - LIMITED_PHOTOS;
    photos = photos.slice(0, LIMITED_PHOTOS);
  }
  const blockedByMe = Boolean(between?.blocked_by_me);
  const liked = Boolean(between?.liked);
  if (viewerProfileId !== null && between?.their_like_new) {
    // Opening a profile clears its "new" mark on a like it gave the viewer (written only when there is one:
    // a write moves the caches' write watch).
    await db.updateTable('likes').set({ is_new: 0 }).where('liker_profile_id', '=', profile.id).where('liked_profile_id', '=', viewerProfileId).where('is_new', '=', 1).execute();
  }
  return {
    id: profile.id, name: profile.name, age: ageOn(profile.birth_date, app.clock.now()), gender: profile.gender, sexuality: profile.sexuality,
    country: profile.country, region: profile.region, city: profile.city, hair_color: profile.hair_color, eye_color: profile.eye_color,
    body_type: profile.body_type, relationship_status: profile.relationship_status, tattoos: profile.tattoos, fictional: profile.fictional === 1,
    interests: interests.map((i) => i.interest),
    notes: site.visible_profile_notes.flatMap((key) => (profile[key] ? [{ key, text: profile[key] }] : [])),
    photos: photos.map((p) => ({ ...p, is_main: p.is_main === 1 })),
    hiddenPhotos, blockedByMe, liked, own,
  };
}

/** A viewer id no profile has (visitors): the relations below are then all false. */
const NO_PROFILE = -1;
/**
 * A profile as a viewer opens it, in one query: the row, the relations between viewer and profile, its
 * interests (alphabetical) and its photos (main first).
 */
const profileViewQuery = preparedQuery((db, profileId: number, siteId: string, viewer: number) => db
  .selectFrom('profiles')
  .selectAll('profiles')
  .select((eb) => {
    const profile = eb.ref('profiles.id') as unknown as Expression<number>;
    return [
      eb.exists(eb.selectFrom('blocks').select('created_at').where('blocker_profile_id', '=', profile).where('blocked_profile_id', '=', viewer)).as('blocked_me'),
      eb.exists(eb.selectFrom('blocks').select('created_at').where('blocker_profile_id', '=', viewer).where('blocked_profile_id', '=', profile)).as('blocked_by_me'),
      eb.exists(eb.selectFrom('likes').select('created_at').where('liker_profile_id', '=', viewer).where('liked_profile_id', '=', profile)).as('liked'),
      eb.exists(eb.selectFrom('likes').select('created_at').where('liker_profile_id', '=', profile).where('liked_profile_id', '=', viewer).where('is_new', '=', 1)).as('their_like_new'),
      jsonArrayFrom(db, db.selectFrom('profile_interests').select('interest').where('profile_id', '=', profile).orderBy('interest') as never).as('interest_rows'),
      jsonArrayFrom(db, ownPhotosQuery(db, profile) as never).as('photo_rows'),
    ];
  })
  .where('id', '=', profileId)
  .where('site_id', '=', siteId), [-434351, '\u0000site', -434352]);

export async function requireOwnProfile(db: Kysely<Database>, user: User): Promise<number> {
  const id = await profileIdOf(db, user);
  if (id === null) throw new ProfileRuleError('no_profile', 'error.invalid_input', 400);
  return id;
}

async function requireTarget(db: Kysely<Database>, site: Site, profileId: number, ownId: number) {
  if (profileId === ownId) throw new ProfileRuleError('self', 'error.invalid_input', 400);
  const target = await db.selectFrom('profiles').select(['id', 'name', 'invisible', 'status', 'user_id']).where('id', '=', profileId).where('site_id', '=', site.id).executeTakeFirst();
  if (target?.status !== 'active') throw new ProfileRuleError('not_found', 'error.not_found', 404);
  return target;
}

export async function blockProfile(app: AppContext, site: Site, user: User, profileId: number) {
  const db = app.db.db;
  const own = await requireOwnProfile(db, user);
  await requireTarget(db, site, profileId, own);
  await db.insertInto('blocks').values({ blocker_profile_id: own, blocked_profile_id: profileId, created_at: app.clock.now() }).onConflict((oc) => oc.doNothing()).execute();
}

export async function unblockProfile(app: AppContext, _site: Site, user: User, profileId: number) {
  const db = app.db.db;
  const own = await requireOwnProfile(db, user);
  await db.deleteFrom('blocks').where('blocker_profile_id', '=', own).where('blocked_profile_id', '=', profileId).execute();
}

/** A complaint about a profile; it lands in the moderation queue. */
export async function reportProfile(app: AppContext, site: Site, user: User, input: { profile_id: number; reason: string; details?: string; message_id?: number }) {
  const db = app.db.db;
  const limits = app.abuse;
  const own = await requireOwnProfile(db, user);
  await requireTarget(db, site, input.profile_id, own);
  if (input.message_id !== undefined) {
    // A reported message must be the reported profile's, in a conversation the reporter is part of.
    const message = await db
      .selectFrom('messages')
      .innerJoin('chat_participants as cp', (join) => join.onRef('cp.conversation_id', '=', 'messages.conversation_id').on('cp.profile_id', '=', own))
      .select('messages.id')
      .where('messages.id', '=', input.message_id)
      .where('messages.sender_profile_id', '=', input.profile_id)
      .executeTakeFirst();
    if (!message) throw new ProfileRuleError('not_found', 'error.not_found', 404);
  }
  // A member reports a profile once; checked again under the member's lock against parallel reports.
  const reported = (q: Kysely<Database> | Transaction<Database>) =>
    q.selectFrom('reports').select('id').where('reporter_profile_id', '=', own).where('profile_id', '=', input.profile_id).executeTakeFirst();
  const duplicate = () => new ProfileRuleError('already_reported', 'limits.report_duplicate', 409);
  if (await reported(db)) throw duplicate();
  await limits.consume('report_day', String(user.id));
  await db.transaction().execute(async (trx) => {
    await lockMember(trx, app.db.dialect, user.id);
    if (await reported(trx)) throw duplicate();
    await trx.insertInto('reports').values({
      reporter_profile_id: own, profile_id: input.profile_id, reason: input.reason, details: input.details || null, status: 'open',
      message_id: input.message_id ?? null, created_at: app.clock.now(),
    }).execute();
  });
}

/** What a like needs to know before its transaction: both profiles, blocks, a like back and the liker's card. */
export async function prepareLike(app: AppContext, site: Site, user: User, profileId: number) {
  const db = app.db.db;
  const now = app.clock.now();
  const own = await requireOwnProfile(db, user);
  const target = await requireTarget(db, site, profileId, own);
  const blocked = await db.selectFrom('blocks').select('created_at').where((eb) => eb.or([
    eb.and([eb('blocker_profile_id', '=', own), eb('blocked_profile_id', '=', profileId)]),
    eb.and([eb('blocker_profile_id', '=', profileId), eb('blocked_profile_id', '=', own)]),
  ])).executeTakeFirst();
  if (blocked) throw new ProfileRuleError('blocked', 'like.blocked', 403);
  const likedBack = await db.selectFrom('likes').select('created_at').where('liker_profile_id', '=', profileId).where('liked_profile_id', '=', own).executeTakeFirst();
  if (target.invisible === 1 && !likedBack) throw new ProfileRuleError('invisible', 'like.invisible', 403);
  // The liked member's tabs get the liker's card; fictional profiles have no tabs.
  const [ownCard] = target.user_id !== null ? await cardsByIds(db, [own], now) : [];
  return { own, profileId, target, likedBack: Boolean(likedBack), ownCard: ownCard as ProfileCard | undefined };
}
type PreparedLike = Awaited<ReturnType<typeof prepareLike>>;

/**
 * Stores a prepared like inside the caller's transaction, which must hold the member's lock
 * (lockMember): the day's count and the insert then cannot interleave with a parallel like.
 */
export async function insertLike(trx: Transaction<Database>, user: User, like: PreparedLike, source: string, now: number) {
  const dayStart = now - (now % DAY);
  const already = await trx.selectFrom('likes').select('created_at').where('liker_profile_id', '=', like.own).where('liked_profile_id', '=', like.profileId).executeTakeFirst();
  const [{ n }] = await trx.selectFrom('likes').select((eb) => eb.fn.countAll<number>().as('n')).where('liker_profile_id', '=', like.own).where('created_at', '>=', dayStart).execute();
  const usedToday = Number(n);
  if (already) return { result: { match: like.likedBack, remaining: user.paid_user ? null : Math.max(0, FREE_LIKES_PER_DAY - usedToday) }, events: [] };
  if (!user.paid_user && usedToday >= FREE_LIKES_PER_DAY) throw new ProfileRuleError('like_limit', 'like.limit', 429, { count: FREE_LIKES_PER_DAY });
  await trx.insertInto('likes').values({ liker_profile_id: like.own, liked_profile_id: like.profileId, source, is_new: 1, created_at: now }).execute();
  // The liked member's open tabs hear of it at once (a like back is a match on their side too).
  const events = like.target.user_id !== null && like.ownCard
    ? await recordEvents(trx, [{ userId: like.target.user_id, event: { type: like.likedBack ? 'match' : 'like', profile: like.ownCard, new_likes: await newLikesTotal(trx, like.profileId) } }], now)
    : [];
  return { result: { match: like.likedBack, remaining: user.paid_user ? null : FREE_LIKES_PER_DAY - usedToday - 1 }, events };
}

/** After the commit: the realtime event and a push to the liked member. */
export async function announceLike(app: AppContext, like: PreparedLike, match: boolean, events: Awaited<ReturnType<typeof recordEvents>>) {
  await app.bus.publish(events);
  const { ownCard, target } = like;
  if (events.length > 0 && target.user_id !== null && ownCard) {
    app.push.notify(target.user_id, 'like', (t) => ({
      title: t(match ? 'push.match_title' : 'push.like_title', { name: ownCard.name }),
      body: t(match ? 'push.match_body' : 'push.like_body'),
      url: `/likes/m/${ownCard.id}`,
      tag: `like-${ownCard.id}`,
    }));
    await announceByMail(app, target.user_id, 'like', ownCard.name);
  }
}

/**
 * Likes a profile: free members 4 a day (premium unlimited); invisible members cannot be liked first,
 * blocked members not at all. A like back is a match.
 */
export async function likeProfile(app: AppContext, site: Site, user: User, profileId: number, source: string): Promise<{ match: boolean; remaining: number | null }> {
  const like = await prepareLike(app, site, user, profileId);
  const now = app.clock.now();
  const { result, events } = await app.db.db.transaction().execute(async (trx) => {
    await lockMember(trx, app.db.dialect, user.id);
    return insertLike(trx, user, like, source, now);
  });
  await announceLike(app, like, result.match, events);
  return result;
}

/**
 * Match finder: profiles that fit who, ages and where, ranked by how many of the chosen interests
 * they share (then photo and recent activity). Falls back to the whole country when the region is too narrow.
 */
export async function findMatches(app: AppContext, site: Site, viewer: User, filters: SearchQuery, interests: string[]): Promise<(ProfileCard & { shared: number })[]> {
  const db = app.db.db;
  const now = app.clock.now();
  const viewerProfileId = await profileIdOf(db, viewer);
  const run = async (f: Filters) => {
    // "in ()" is not valid SQL: with no interests chosen, count a value no profile has.
    const wanted = interests.length ? interests : ['-'];
    const q = filtered(db, site, viewerProfileId, f, now).select((eb) => [
      'profiles.id',
      eb.selectFrom('profile_interests').select(eb.fn.countAll<number>().as('c')).whereRef('profile_interests.profile_id', '=', 'profiles.id').where('profile_interests.interest', 'in', wanted).as('shared'),
    ]);
    const rows = (await q.orderBy('shared', 'desc').orderBy('profiles.has_photo', 'desc').orderBy('profiles.last_active_at', 'desc').limit(SEARCH_PAGE_SIZE).execute()) as { id: number; shared: number }[];
    return rows;
  };
  let rows = await run(filters);
  if (rows.length < SIMILAR_THRESHOLD && filters.countryregion) rows = await run({ ...filters, countryregion: undefined });
  const shared = new Map(rows.map((r) => [r.id, Number(r.shared)]));
  const cards = await cardsByIds(db, rows.map((r) => r.id), now);
  return cards.map((card) => ({ ...card, shared: shared.get(card.id) ?? 0 }));
}
