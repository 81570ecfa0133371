import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeTracking, encodeTracking, mergeTracking, TRACKING_COOKIE, TRACKING_COOKIE_MAX_AGE_S, type Tracking } from '../../shared/tracking';
import { parseCookies } from '../context/request-context';

/** The visit's tracking as this request sees it: the cookie's data with the URL's params and lander applied. */
export function requestTracking(url: URL, cookieHeader: string | null | undefined): Tracking {
  return mergeTracking(decodeTracking(parseCookies(cookieHeader)[TRACKING_COOKIE]), url.pathname, url.searchParams);
}

/** Set-Cookie value keeping this tracking for 30 days (first-party, not readable by scripts). */
export function trackingCookie(tracking: Tracking, secure: boolean): string {
  return `${TRACKING_COOKIE}=${encodeURIComponent(encodeTracking(tracking))}; Max-Age=${TRACKING_COOKIE_MAX_AGE_S}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/**
 * Tracking for this request and the Set-Cookie header to send when the URL changed it
 * (tracking params or a lander path); null when the cookie already says the same.
 */
export function visitTracking(url: URL, cookieHeader: string | null | undefined, secure: boolean): { tracking: Tracking; setCookie: string | null } {
  const stored = decodeTracking(parseCookies(cookieHeader)[TRACKING_COOKIE]);
  const tracking = mergeTracking(stored, url.pathname, url.searchParams);
  const changed = encodeTracking(tracking) !== encodeTracking(stored);
  return { tracking, setCookie: changed ? trackingCookie(tracking, secure) : null };
}

/** For the node entry: sets the tracking cookie on a page response when its URL carries tracking or a lander. */
export function keepVisitTracking(req: IncomingMessage, res: ServerResponse, secure: boolean): void {
  const url = req.url ?? '/';
  if (!url.includes('?') && !url.includes('/landers/')) return;
  // Cheaper than new URL() on this hot path (every lander request of a first visit passes here).
  const q = url.indexOf('?');
  const pathname = q === -1 ? url : url.slice(0, q);
  const stored = decodeTracking(parseCookies(req.headers.cookie)[TRACKING_COOKIE]);
  const tracking = mergeTracking(stored, pathname, new URLSearchParams(q === -1 ? '' : url.slice(q + 1)));
  if (tracking === stored) return;
  const value = encodeTracking(tracking);
  if (value !== encodeTracking(stored)) res.appendHeader('Set-Cookie', trackingCookie(tracking, secure));
}
