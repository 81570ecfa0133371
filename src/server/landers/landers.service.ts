import type { Kysely } from 'kysely';
import { LANDER_PROFILES_TTL_MS, type LanderProfiles, type LanderProfilesQuery, ONLINE_WINDOW_MS } from '../../shared/landers.contract';
import type { Site } from '../../shared/site.schema';
import type { AppContext } from '../app-context';
import type { Database, User } from '../db/schema';
import { birthDateForAge, cardsByIds, profileIdOf, visibleTo } from '../profiles/profiles.service';

const CACHE_LIMIT = 500;
// One cache per app (tests run several apps in one process).
const caches = new WeakMap<AppContext, Map<string, { at: number; value: LanderProfiles }>>();

/** A profile the signup wizard may target: active, visible, on this site. */
export function findSignupTarget(db: Kysely<Database>, siteId: string, id: number) {
  return db.selectFrom('profiles').select(['id', 'name']).where('id', '=', id).where('site_id', '=', siteId).where('status', '=', 'active').where('invisible', '=', 0).executeTakeFirst();
}

/** Country the lander talks about: the asked one or the visitor's when the site serves it, else the site's first. */
export function landerCountry(site: Site, asked: string | undefined, visitor: string | null): string {
  if (asked && site.countries.includes(asked)) return asked;
  if (visitor && site.countries.includes(visitor)) return visitor;
  return site.countries[0];
}

/** Whether the lander's country is the visitor's own (asked or placed), not the site's fallback. */
export function visitorPlaced(site: Site, asked: string | undefined, visitor: string | null): boolean {
  return Boolean((asked && site.countries.includes(asked)) || (visitor && site.countries.includes(visitor)));
}

async function computeTeasers(app: AppContext, site: Site, viewerProfileId: number | null, q: LanderProfilesQuery, country: string, placed: boolean): Promise<LanderProfiles> {
  const db = app.db.db;
  const now = app.clock.now();
  let base = db.selectFrom('profiles').where((eb) => visibleTo(eb, site.id, viewerProfileId));
  if (q.gender) base = base.where('profiles.gender', '=', q.gender);
  if (q.min_age !== undefined) base = base.where('profiles.birth_date', '<=', birthDateForAge(now, q.min_age));
  if (q.max_age !== undefined) base = base.where('profiles.birth_date', '>', birthDateForAge(now, q.max_age + 1));
  if (q.near || q.regions) base = base.where('profiles.country', '=', country);
  const [counts] = await base
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.sum<number>(eb.case().when('profiles.last_active_at', '>=', now - ONLINE_WINDOW_MS).then(1).else(0).end()).as('online'),
    ])
    .execute();
  // Photos first, then the most recently active: the same order search uses (and its index).
  const shown = await base.select(['profiles.id', 'profiles.last_active_at']).orderBy('profiles.has_photo', 'desc').orderBy('profiles.last_active_at', 'desc').orderBy('profiles.id', 'desc').limit(q.limit).execute();
  const ids = shown.map((r) => r.id);
  const onlineIds = shown.filter((r) => Number(r.last_active_at) >= now - ONLINE_WINDOW_MS).map((r) => r.id);
  let regions: Record<string, number> | null = null;
  if (q.regions) {
    const rows = await base.select((eb) => ['profiles.region', eb.fn.countAll<number>().as('n')]).where('profiles.region', 'is not', null).groupBy('profiles.region').execute();
    regions = Object.fromEntries(rows.map((r) => [r.region as string, Number(r.n)]));
  }
  return { profiles: await cardsByIds(db, ids, now), total: Number(counts?.total ?? 0), online: Number(counts?.online ?? 0), online_ids: onlineIds, country, placed, regions };
}

/**
 * Teaser profiles of a lander: the site's real, active, visible profiles matching its filter (fictional ones are
 * flagged for the label), never blocked ones for a member. Visitors' answers are cached per site and query.
 */
export async function landerTeasers(app: AppContext, site: Site, viewer: User | null, q: LanderProfilesQuery, visitorCountry: string | null): Promise<LanderProfiles> {
  const country = landerCountry(site, q.country, visitorCountry);
  const placed = visitorPlaced(site, q.country, visitorCountry);
  const viewerProfileId = await profileIdOf(app.db.db, viewer);
  if (viewerProfileId !== null) return computeTeasers(app, site, viewerProfileId, q, country, placed);
  const key = `${site.id}|${country}|${placed ? 'placed' : ''}|${q.gender ?? ''}|${q.min_age ?? ''}|${q.max_age ?? ''}|${q.near ?? ''}|${q.regions ?? ''}|${q.limit}`;
  const now = app.clock.now();
  let cache = caches.get(app);
  if (!cache) {
    cache = new Map();
    caches.set(app, cache);
  }
  const hit = cache.get(key);
  if (hit && now - hit.at < LANDER_PROFILES_TTL_MS && hit.at <= now) return hit.value;
  const value = await computeTeasers(app, site, null, q, country, placed);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, { at: now, value });
  return value;
}

/** Forgets cached teasers (tests, and after moderation hides a profile). */
export function clearLanderTeaserCache(app: AppContext): void {
  caches.get(app)?.clear();
}
