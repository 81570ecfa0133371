/** Any origin works for parsing: only paths on it are kept. */
const PARSE_ORIGIN = 'https://kindred.invalid';

/**
 * The same-site path a `next` parameter may send the member to, or null. The target is parsed as
 * a URL against the site's origin and kept only when it stays on that origin; backslashes and
 * control characters (which browsers strip or read as slashes) are refused outright, as is
 * anything that would become a protocol-relative `//host` address.
 */
export function safeNextPath(target: unknown, origin: string = PARSE_ORIGIN): string | null {
  if (typeof target !== 'string' || target.length === 0 || target.length > 2048) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f-\u009f\\]/.test(target)) return null;
  if (!target.startsWith('/') || target.startsWith('//')) return null;
  let url: URL;
  let base: URL;
  try {
    base = new URL(origin);
    url = new URL(target, base);
  } catch {
    return null;
  }
  if (url.origin !== base.origin) return null;
  const path = url.pathname + url.search + url.hash;
  return path.startsWith('/') && !path.startsWith('//') ? path : null;
}
