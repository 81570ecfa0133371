import type { MiddlewareHandler } from 'hono';
import { jsonError } from './http-errors';
import type { ApiEnv } from './types';

/** Calls whose body is the raw image (profile photos and images sent in chat). */
export const IMAGE_UPLOAD_PATHS = new Set(['/api/photos.php', '/api/chat-image.php']);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Form posts: Mollie's webhook (server to server, no cookies used) and the local provider's checkout page. */
function acceptsForm(path: string): boolean {
  return path === '/api/webhooks/mollie.php' || path.startsWith('/api/local-mollie/checkout/');
}

/** True when a state-changing request comes from this site (Sec-Fetch-Site, else Origin vs Host). */
export function isSameOrigin(headers: Headers): boolean {
  const fetchSite = headers.get('sec-fetch-site');
  if (fetchSite) return fetchSite === 'same-origin' || fetchSite === 'none';
  const origin = headers.get('origin');
  if (!origin) return true; // not a browser: no ambient cookies to abuse
  try {
    const host = headers.get('x-forwarded-host') ?? headers.get('host');
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** Refuses cross-site writes and non-JSON bodies on state-changing calls. */
export function requireSameOriginJson(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    if (!isSameOrigin(c.req.raw.headers)) return jsonError(c, 403, 'cross_site', 'error.cross_site');
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
