import type { IncomingHttpHeaders } from 'node:http';
import { DEFAULT_LOCALE, isLocale, type Locale, LOCALE_COOKIE, localeFromAcceptLanguage, matchLocale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';
import type { SiteRegistry } from '../sites/site-registry';
import { countryForIp } from './geoip';

export type LocaleSource = 'cookie' | 'site' | 'header' | 'default';

/** What every request needs to know: which site, which language, which country, who. */
export interface RequestContext {
  site: Site;
  locale: Locale;
  localeSource: LocaleSource;
  country: string | null;
  secure: boolean;
  origin: string;
}

/** Parses a Cookie header into a name → value map (first occurrence wins). */
export function parseCookies(header: string | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (name in out) continue;
    const raw = part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      out[name] = raw;
    }
  }
  return out;
}

/** Locale rule: `lang` cookie → site's domain_language → Accept-Language → en. */
export function resolveLocale(input: {
  cookieLocale?: string | null;
  domainLanguage?: string | null;
  acceptLanguage?: string | null;
}): { locale: Locale; source: LocaleSource } {
  if (isLocale(input.cookieLocale)) return { locale: input.cookieLocale, source: 'cookie' };
  const fromSite = matchLocale(input.domainLanguage);
  if (fromSite) return { locale: fromSite, source: 'site' };
  const fromHeader = localeFromAcceptLanguage(input.acceptLanguage);
  if (fromHeader) return { locale: fromHeader, source: 'header' };
  return { locale: DEFAULT_LOCALE, source: 'default' };
}

export interface ContextOptions {
  /** Use X-Forwarded-For / X-Forwarded-Proto from a trusted reverse proxy. */
  trustProxy: boolean;
  /** Header carrying an ISO country set by a trusted CDN (e.g. cf-ipcountry). */
  countryHeader: string | null;
  /** PUBLIC_ORIGIN; when set, decides whether requests count as https. */
  publicOrigin: string | null;
}

function firstHeader(value: string | string[] | undefined): string | null {
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

/** Client IP: the socket address, or the first X-Forwarded-For hop when the proxy is trusted. */
export function clientIp(headers: IncomingHttpHeaders, remoteAddress: string | undefined, options: ContextOptions): string | null {
  if (options.trustProxy) {
    const forwarded = firstHeader(headers['x-forwarded-for']);
    if (forwarded) return forwarded.split(',')[0].trim();
  }
  return remoteAddress ?? null;
}

/** Builds the request context from a node request's headers; used by both Hono and Astro. */
export function createRequestContext(
  registry: SiteRegistry,
  req: { headers: IncomingHttpHeaders; remoteAddress?: string; encrypted?: boolean },
  options: ContextOptions,
): RequestContext {
  const host = firstHeader(req.headers['x-forwarded-host']) && options.trustProxy
    ? firstHeader(req.headers['x-forwarded-host'])
    : firstHeader(req.headers.host);
  const site = registry.forHost(host);
  const cookies = parseCookies(firstHeader(req.headers.cookie));
  const { locale, source } = resolveLocale({
    cookieLocale: cookies[LOCALE_COOKIE],
    domainLanguage: site.domain_language,
    acceptLanguage: firstHeader(req.headers['accept-language']),
  });
  let country: string | null = null;
  if (options.countryHeader) {
    const fromHeader = firstHeader(req.headers[options.countryHeader.toLowerCase()]);
    if (fromHeader && /^[A-Za-z]{2}$/.test(fromHeader)) country = fromHeader.toUpperCase();
  }
  if (!country) country = countryForIp(clientIp(req.headers, req.remoteAddress, options));
  const proto = options.trustProxy ? firstHeader(req.headers['x-forwarded-proto']) : null;
  const secure = options.publicOrigin ? options.publicOrigin.startsWith('https:') : proto === 'https' || Boolean(req.encrypted);
  const origin = options.publicOrigin ?? `${secure ? 'https' : 'http'}://${host ?? site.domains[0]}`;
  return { site, locale, localeSource: source, country, secure, origin };
}
