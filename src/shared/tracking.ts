/** Tracking of a visit (SPEC §3 signup tracking data) plus the lander it arrived on, shared by server and client. */

/** Query parameters of a landing URL that name the traffic source. */
export const TRACKING_PARAMS = ['network', 'ref', 'sub1', 'sub2', 'sub3'] as const;
export type TrackingParam = (typeof TRACKING_PARAMS)[number];

/** First-party cookie that keeps the tracking data for the rest of the visit. */
export const TRACKING_COOKIE = 'kd_track';
/** 30 days (issue 13 item 5). */
export const TRACKING_COOKIE_MAX_AGE_S = 30 * 24 * 60 * 60;

/** The nine lander types of SPEC §2, in the order of the route table. */
export const LANDER_TYPES = [
  'tinderswipe', 'alonetonight', 'collagelanding', 'gallery', 'iconslanding', 'maplanding', 'socialnetwork', 'transitionsvideolanding', 'video',
] as const;
export type LanderType = (typeof LANDER_TYPES)[number];
/** The slug of a lander reached without one (/landers/<type>). */
export const DEFAULT_LANDER_SLUG = 'default';

/**
 * `viewed`: the landers (`type/slug`) whose view this visit already counted in the lander funnel
 * (the last VIEWED_MAX), so a reload or a replayed beacon counts once.
 */
export type Tracking = Partial<Record<TrackingParam, string>> & { lander?: LanderType; slug?: string; viewed?: string[] };
export const VIEWED_MAX = 10;
const VIEWED = /^[a-z]{1,32}\/[a-z0-9][a-z0-9-]{0,63}$/;

/** The charset and length a tracking value may have (network and ref tighter), in the cookie and in the signup body alike. */
export const TRACKING_VALUE = /^[\w.~:@+-]{1,128}$/;
export const TRACKING_NETWORK = /^[\w.-]{1,64}$/;
const VALUE = TRACKING_VALUE;
const NETWORK = TRACKING_NETWORK;
const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** One tracking value if it is safe to keep (networks are tighter, the rest up to 128 plain characters). */
export function cleanTrackingValue(key: TrackingParam, value: string | null | undefined): string | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (key === 'network' || key === 'ref') return NETWORK.test(v) ? v : undefined;
  return VALUE.test(v) ? v : undefined;
}

export function isLanderType(value: unknown): value is LanderType {
  return typeof value === 'string' && (LANDER_TYPES as readonly string[]).includes(value);
}

export function isLanderSlug(value: unknown): value is string {
  return typeof value === 'string' && SLUG.test(value);
}

/** Lander type and slug of a path such as /landers/gallery/mature or /de/landers/video, or null. */
export function landerOfPath(pathname: string): { lander: LanderType; slug: string } | null {
  const m = /^(?:\/[a-z]{2})?\/landers\/([a-z]+)(?:\/([a-z0-9-]+))?\/?$/.exec(pathname);
  if (!m || !isLanderType(m[1])) return null;
  const slug = m[2] ?? DEFAULT_LANDER_SLUG;
  return isLanderSlug(slug) ? { lander: m[1], slug } : null;
}

/** Tracking params present on a URL (only the valid ones), or null when it has none. */
export function trackingOfQuery(params: URLSearchParams): Partial<Record<TrackingParam, string>> | null {
  const out: Partial<Record<TrackingParam, string>> = {};
  for (const key of TRACKING_PARAMS) {
    const value = cleanTrackingValue(key, params.get(key));
    if (value) out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** Serialises tracking for the cookie (a query string, so no JSON quoting in cookies). */
export function encodeTracking(tracking: Tracking): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(tracking)) if (v && v.length > 0) params.set(k, Array.isArray(v) ? v.join(',') : v);
  return params.toString();
}

/** Reads the cookie value back, dropping anything not valid. */
export function decodeTracking(value: string | undefined | null): Tracking {
  if (!value) return {};
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(value);
  } catch {
    return {};
  }
  const out: Tracking = { ...(trackingOfQuery(params) ?? {}) };
  const lander = params.get('lander');
  const slug = params.get('slug');
  if (isLanderType(lander) && isLanderSlug(slug)) Object.assign(out, { lander, slug });
  const viewed = (params.get('viewed') ?? '').split(',').filter((v) => VIEWED.test(v)).slice(-VIEWED_MAX);
  if (viewed.length > 0) out.viewed = viewed;
  return out;
}

/**
 * The visit's tracking after this URL: fresh tracking params replace the whole source (a new ad click is a new
 * source), a lander path records the lander; otherwise the cookie's data stays.
 */
export function mergeTracking(current: Tracking, pathname: string, params: URLSearchParams): Tracking {
  const fresh = trackingOfQuery(params);
  const lander = landerOfPath(pathname);
  if (!fresh && !lander) return current;
  const source = fresh ?? Object.fromEntries(TRACKING_PARAMS.filter((k) => current[k]).map((k) => [k, current[k]]));
  const place = lander ?? (current.lander && current.slug ? { lander: current.lander, slug: current.slug } : {});
  return { ...source, ...place, ...(current.viewed ? { viewed: current.viewed } : {}) };
}
