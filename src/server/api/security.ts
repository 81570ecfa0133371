import type { MiddlewareHandler } from 'hono';
import type { RequestContext } from '../context/request-context';
import { jsonError } from './http-errors';
import type { ApiEnv } from './types';

/** Calls whose body is the raw image (profile photos and images sent in chat). */
export const IMAGE_UPLOAD_PATHS = new Set(['/api/photos.php', '/api/chat-image.php']);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const UNSUBSCRIBE_PATH = '/api/unsubscribe.php';

/**
 * Form posts: Mollie's webhook (server to server, no cookies used), the local provider's checkout
 * page and one-click unsubscribe (mail providers post `List-Unsubscribe=One-Click`; the token decides).
 */
function acceptsForm(path: string): boolean {
  return path === '/api/webhooks/mollie.php' || path === UNSUBSCRIBE_PATH || path.startsWith('/api/local-mollie/checkout/');
}

/**
 * True when a state-changing request comes from this site: Sec-Fetch-Site, else the Origin header
 * compared, scheme included, with this request's origin (forwarded host/scheme only with TRUST_PROXY)
 * or the site's configured public origin.
 */
export function isSameOrigin(headers: Headers, ctx: Pick<RequestContext, 'requestOrigin' | 'origin'>): boolean {
  const fetchSite = headers.get('sec-fetch-site');
  if (fetchSite) return fetchSite === 'same-origin' || fetchSite === 'none';
  const origin = headers.get('origin');
  if (!origin) return true; // not a browser: no ambient cookies to abuse
  return origin.toLowerCase() === ctx.requestOrigin || origin === ctx.origin;
}

/**
 * For navigations that change state (GET /api/logout.php): only a request the site itself started
 * counts — Sec-Fetch-Site same-origin/none, or, from browsers without it, a same-origin Referer.
 */
export function isOwnNavigation(headers: Headers, ctx: Pick<RequestContext, 'requestOrigin' | 'origin'>): boolean {
  const fetchSite = headers.get('sec-fetch-site');
  if (fetchSite) return fetchSite === 'same-origin' || fetchSite === 'none';
  const referer = headers.get('referer');
  if (!referer) return false;
  try {
    const from = new URL(referer).origin;
    return from === ctx.requestOrigin || from === ctx.origin;
  } catch {
    return false;
  }
}

/** Refuses cross-site writes and non-JSON bodies on state-changing calls. */
export function requireSameOriginJson(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    // One-click unsubscribe uses no cookie (its token decides), so a mail client may post it from anywhere.
    if (!isSameOrigin(c.req.raw.headers, c.var.ctx) && c.req.path !== UNSUBSCRIBE_PATH) return jsonError(c, 403, 'cross_site', 'error.cross_site');
    const length = c.req.header('content-length');
    const hasBody = length !== undefined ? length !== '0' : c.req.header('transfer-encoding') !== undefined || c.req.raw.body !== null;
    const type = c.req.header('content-type') ?? '';
    const imageUpload = IMAGE_UPLOAD_PATHS.has(c.req.path) && /^image\/(jpeg|png|webp|heic|heif)$/i.test(type);
    const form = acceptsForm(c.req.path) && /^application\/x-www-form-urlencoded\s*(;|$)/i.test(type);
    if (hasBody && !imageUpload && !form && !/^application\/json\s*(;|$)/i.test(type)) {
      return jsonError(c, 415, 'unsupported_media_type', 'error.unsupported_type');
    }
    return next();
  };
}
