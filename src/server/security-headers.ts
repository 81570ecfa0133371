import { createHash } from 'node:crypto';

/** Opening tags of scripts, and their end: an inline script's text lies between (HTML has no nesting inside a script). */
const SCRIPT_OPEN = /<script\b([^>]*)>/gi;
const SCRIPT_CLOSE = /<\/script>/gi;

/**
 * sha256 CSP sources for every inline <script> in an HTML document (scripts with `src` and JSON data blocks
 * need none). Only the opening tags are matched; a data block's text (a member page's island data, kilobytes)
 * is skipped to its end in one search, not scanned character by character.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  SCRIPT_OPEN.lastIndex = 0;
  for (let open = SCRIPT_OPEN.exec(html); open; open = SCRIPT_OPEN.exec(html)) {
    SCRIPT_CLOSE.lastIndex = SCRIPT_OPEN.lastIndex;
    const close = SCRIPT_CLOSE.exec(html);
    if (!close) break;
    const attributes = open[1] as string;
    if (!/\bsrc=/i.test(attributes) && !/\btype="application\/(ld\+)?json"/i.test(attributes)) hashes.push(scriptHash(html.slice(SCRIPT_OPEN.lastIndex, close.index)));
    SCRIPT_OPEN.lastIndex = SCRIPT_CLOSE.lastIndex;
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
