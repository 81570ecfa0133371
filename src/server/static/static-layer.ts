import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { STATIC_PAGES } from '../../shared/constants';
import { DEFAULT_LANDER_SLUG, isLanderSlug, isLanderType } from '../../shared/tracking';
import { isLocale, LOCALE_COOKIE, type Locale } from '../../shared/locales';
import { type ContextOptions, isSecureRequest, parseCookies, type RequestEndpoint, requestEndpoint, resolveLocale } from '../context/request-context';
import { baseSecurityHeaders, contentSecurityPolicy, inlineScriptHashes, NON_HTML_CSP, SERVICE_WORKER_CSP } from '../security-headers';
import { APP_ICONS } from '../../shared/app-icons';
import type { SiteRegistry } from '../sites/site-registry';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

type Encoding = 'br' | 'gzip' | 'identity';

/** One file held in memory with its precompressed bodies and ready-made headers. */
interface Asset {
  bodies: Record<Encoding, Buffer | undefined>;
  headers: Record<Encoding, Record<string, string>>;
}

const PAGE_SET = new Set<string>(STATIC_PAGES);
/** Editor-defined page tokens (content/pages/<locale>/<token>.md). */
const PAGE_TOKEN = /^[a-z0-9][a-z0-9-]{0,63}$/;
const SESSION_COOKIE = 'kd_session';
const HSTS = { 'Strict-Transport-Security': baseSecurityHeaders(true)['Strict-Transport-Security'] };

/** Files every site has its own copy of. */
const PER_SITE_FILES = new Set(['/sitemap.xml', '/robots.txt', '/manifest.webmanifest', ...Object.keys(APP_ICONS).map((file) => `/${file}`)]);
/** Files only reachable through the page mapping, never by their build path. */
const INTERNAL_PREFIX = '/pages/';

function walk(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full, `${prefix}/${name}`) : [`${prefix}/${name}`];
  });
}

/**
 * Lander URL parts → locale (null: negotiate) and build path below the locale (`landers/<type>/<slug>`, or its
 * `…/og.png` share image). Null when the parts are no lander URL; an unknown type or slug has no file, so 404.
 */
function landerFile(parts: string[]): { locale: Locale | null; page: string } | null {
  let locale: Locale | null = null;
  let rest = parts;
  if (isLocale(parts[0])) [locale, rest] = [parts[0], parts.slice(1)];
  if (rest[0] !== 'landers' || !isLanderType(rest[1])) return null;
  const og = rest[rest.length - 1] === 'og.png';
  const tail = og ? rest.slice(2, -1) : rest.slice(2);
  if (tail.length > 1 || (tail.length === 1 && !isLanderSlug(tail[0]))) return null;
  const slug = tail[0] ?? DEFAULT_LANDER_SLUG;
  return { locale, page: `landers/${rest[1]}/${slug}${og ? '/og.png' : ''}` };
}

function pickEncoding(accept: string | undefined): Encoding {
  if (!accept) return 'identity';
  if (accept.includes('br')) return 'br';
  if (accept.includes('gzip')) return 'gzip';
  return 'identity';
}

/**
 * Serves the build's client files from memory: hashed assets with immutable caching, and
 * prerendered pages for each site × locale mapped onto /, /<page> and /<locale>/<page>.
 */
export class StaticLayer {
  private readonly assets = new Map<string, Asset>();

  constructor(
    private readonly clientDir: string,
    private readonly sites: SiteRegistry,
    private readonly options: Pick<ContextOptions, 'trustProxy'> = { trustProxy: 0 },
  ) {}

  /** Loads every file (with its .br/.gz twins written by the build) into memory. */
  load(): number {
    if (!existsSync(this.clientDir)) return 0;
    for (const rel of walk(this.clientDir)) {
      if (rel.endsWith('.br') || rel.endsWith('.gz')) continue;
      const file = path.join(this.clientDir, rel);
      const body = readFileSync(file);
      const type = TYPES[path.extname(rel)] ?? 'application/octet-stream';
      const etag = `"${createHash('sha1').update(body).digest('base64url').slice(0, 20)}"`;
      const immutable = rel.startsWith('/_astro/');
      const isHtml = type.startsWith('text/html');
      const common: Record<string, string> = {
        ...baseSecurityHeaders(false),
        'Content-Type': type,
        ETag: etag,
        'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=0, must-revalidate',
        // The worker itself must revalidate, or a fixed version would wait a day behind the HTTP cache.
        ...(rel === '/sw.js' ? { 'Service-Worker-Allowed': '/' } : {}),
        'Content-Security-Policy': isHtml
          ? contentSecurityPolicy(inlineScriptHashes(body.toString('utf8')))
          : rel === '/sw.js' ? SERVICE_WORKER_CSP : NON_HTML_CSP,
        Vary: 'Accept-Encoding',
      };
      if (rel.startsWith(INTERNAL_PREFIX) && isHtml) {
        const locale = rel.split('/')[3];
        if (isLocale(locale)) common['Content-Language'] = locale;
      }
      const read = (ext: string) => (existsSync(file + ext) ? readFileSync(file + ext) : undefined);
      const bodies: Asset['bodies'] = { identity: body, br: read('.br'), gzip: read('.gz') };
      const headers = {} as Asset['headers'];
      for (const enc of ['identity', 'br', 'gzip'] as const) {
        const b = bodies[enc];
        if (!b) continue;
        // Each encoding is a different representation, so it gets its own strong ETag.
        const tag = enc === 'identity' ? etag : etag.replace(/"$/, `-${enc}"`);
        headers[enc] = { ...common, ETag: tag, 'Content-Length': String(b.length) };
        if (enc !== 'identity') headers[enc]['Content-Encoding'] = enc;
      }
      this.assets.set(rel, { bodies, headers });
    }
    return this.assets.size;
  }

  /** Build path of the prerendered file answering a public URL on this host, or null. */
  resolvePath(pathname: string, host: string | undefined, cookieHeader: string | undefined, acceptLanguage: string | undefined): { file: string; negotiated: boolean } | null {
    const site = this.sites.forHost(host);
    const base = `${INTERNAL_PREFIX}${site.id}`;
    if (PER_SITE_FILES.has(pathname)) return { file: `${base}${pathname}`, negotiated: false };
    const parts = pathname.split('/').filter(Boolean);
    let locale: Locale | null = null;
    let page: string;
    if (parts.length === 0) page = 'index';
    else if (parts.length === 1 && isLocale(parts[0]) && pathname.endsWith('/')) [locale, page] = [parts[0], 'index'];
    // Spec pages and editor-defined `{token}` pages (an unknown token has no file: the 404 page answers).
    else if (parts.length === 1 && (PAGE_SET.has(parts[0]) || PAGE_TOKEN.test(parts[0]))) page = parts[0];
    else if (parts.length === 2 && isLocale(parts[0]) && (PAGE_SET.has(parts[1]) || PAGE_TOKEN.test(parts[1]))) [locale, page] = [parts[0], parts[1]];
    else {
      // Landers: /landers/<type>[/<slug>][/og.png] and the same under /<locale>/.
      const lander = landerFile(parts);
      if (!lander) return null;
      [locale, page] = [lander.locale, lander.page];
    }
    const negotiated = locale === null;
    if (!locale) {
      const cookies = parseCookies(cookieHeader);
      locale = resolveLocale({ cookieLocale: cookies[LOCALE_COOKIE], domainLanguage: site.domain_language, acceptLanguage }).locale;
    }
    if (page.endsWith('.png')) return { file: `${base}/${locale}/${page}`, negotiated };
    return { file: page === 'index' ? `${base}/${locale}/index.html` : `${base}/${locale}/${page}/index.html`, negotiated };
  }

  /** Answers the request when a static file matches; returns false to let the next handler try. */
  handle(req: IncomingMessage, res: ServerResponse, endpoint: RequestEndpoint = requestEndpoint({ headers: req.headers }, this.options)): boolean {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let pathname = q === -1 ? url : url.slice(0, q);
    try {
      pathname = decodeURIComponent(pathname);
    } catch {
      return false;
    }
    let asset: Asset | undefined;
    let negotiated = false;
    if (!pathname.startsWith(INTERNAL_PREFIX)) asset = this.assets.get(pathname);
    if (!asset) {
      // Members get pages rendered on request, with their own navigation (landers are the same for everyone).
      // (The site's own files — manifest, icons — are the same for everyone.)
      if (req.headers.cookie?.includes(`${SESSION_COOKIE}=`) && !pathname.includes('/landers/') && !PER_SITE_FILES.has(pathname)) return false;
      const mapped = this.resolvePath(pathname, endpoint.host ?? undefined, req.headers.cookie, req.headers['accept-language']);
      if (!mapped) return false;
      asset = this.assets.get(mapped.file);
      negotiated = mapped.negotiated;
      if (!asset) return false;
    }
    let encoding = pickEncoding(req.headers['accept-encoding'] as string | undefined);
    if (!asset.bodies[encoding]) encoding = 'identity';
    let headers = negotiated
      ? { ...asset.headers[encoding], Vary: 'Accept-Encoding, Cookie, Accept-Language', 'Cache-Control': 'private, no-cache' }
      : asset.headers[encoding];
    if (isSecureRequest(this.sites, endpoint)) {
      headers = { ...headers, ...HSTS };
    }
    if (req.headers['if-none-match'] === headers.ETag) {
      res.writeHead(304, { ETag: headers.ETag, 'Cache-Control': headers['Cache-Control'], Vary: headers.Vary });
      res.end();
      return true;
    }
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : asset.bodies[encoding]);
    return true;
  }
}
