import { createHash } from 'node:crypto';

/** sha256 CSP sources for every inline <script> in an HTML document. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  // Most documents have none in most of their parts (a member page's body): no regex run for those.
  if (!/<script/i.test(html)) return hashes;
  const re = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    if (/type="application\/(ld\+)?json"/i.test(m[0])) continue;
    hashes.push(scriptHash(m[1] as string));
  }
  return hashes;
}

/**
 * The same few inline scripts (Astro's island loader, the theme and service-worker snippets) are on
 * every page a process renders: their hashes are kept by text, up to SCRIPT_HASHES_KEPT of them.
 */
const SCRIPT_HASHES_KEPT = 256;
const hashByScript = new Map<string, string>();
function scriptHash(script: string): string {
  let hash = hashByScript.get(script);
  if (hash === undefined) {
    hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
    if (hashByScript.size >= SCRIPT_HASHES_KEPT) hashByScript.clear();
    hashByScript.set(script, hash);
  }
  return hash;
}

/** The Content-Security-Policy for an HTML page with these inline script hashes. */
export function contentSecurityPolicy(scriptHashes: string[] = []): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${scriptHashes.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "worker-src 'self'",
    "manifest-src 'self'",
  ].join('; ');
}

/** Headers every response carries; HSTS only over https. */
export function baseSecurityHeaders(secure: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(self), payment=(self)',
  };
  if (secure) headers['Strict-Transport-Security'] = 'max-age=31536000; includeSubDomains';
  return headers;
}

/** Security headers for a non-HTML response (JSON, assets): a locked-down CSP. */
export const NON_HTML_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * A service worker's own CSP governs its fetches: it caches same-origin assets and shows
 * notifications with the site's icons, so it needs 'self' (with 'none' it never installs).
 */
export const SERVICE_WORKER_CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";
