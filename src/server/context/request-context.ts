import type { IncomingHttpHeaders } from 'node:http';
import { DEFAULT_LOCALE, isLocale, type Locale, LOCALE_COOKIE, localeFromAcceptLanguage, matchLocale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';
import type { SiteRegistry } from '../sites/site-registry';
import { countryForIp } from './geoip';

export type LocaleSource = 'cookie' | 'site' | 'header' | 'default';

/** What every request needs to know: which site, which language, which country, who, from where. */
export interface RequestContext {
  site: Site;
  locale: Locale;
  localeSource: LocaleSource;
  country: string | null;
  /** Client address: the socket's, or the proxy's forwarded one with TRUST_PROXY. */
  ip: string | null;
  /** True over https (the request's scheme, or a site whose public origin is https). */
  secure: boolean;
  /** scheme://host this request was made to, for same-origin checks. */
  requestOrigin: string;
  /** The site's configured public origin: the only base for absolute links (mails, push, payments). */
  origin: string;
  /** False in production when no site lists the request's host (it then gets no answer but 421). */
  knownHost: boolean;
}

/** A cookie's value as sent (`name=value` after the `=`): unquoted and percent-decoded where it decodes. */
function cookieText(sent: string): string {
  const raw = sent.trim().replace(/^"(.*)"$/, '$1');
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** `parseCookies(header)[name]` without reading the other cookies (the session cookie on every request). */
export function cookieValue(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (let from = 0; from < header.length; ) {
    let end = header.indexOf(';', from);
    if (end < 0) end = header.length;
    const eq = header.indexOf('=', from);
    if (eq > from && eq < end && header.slice(from, eq).trim() === name) return cookieText(header.slice(eq + 1, end));
    from = end + 1;
  }
  return undefined;
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
    out[name] = cookieText(part.slice(eq + 1));
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
  /** TRUST_PROXY: how many reverse proxies in front of us add X-Forwarded-* headers (0: none, ignore them). */
  trustProxy: number;
  /** Header carrying an ISO country set by a trusted CDN (e.g. cf-ipcountry). */
  countryHeader: string | null;
}

function firstHeader(value: string | string[] | undefined): string | null {
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

/** The last value of a comma-separated forwarded header, `hops` from the right (what our proxy saw). */
function forwarded(headers: IncomingHttpHeaders, name: string, hops: number): string | null {
  const raw = headers[name];
  const values = (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).split(',').map((v) => v.trim()).filter(Boolean);
  return values.length ? (values[Math.max(0, values.length - hops)] ?? null) : null;
}

export interface RequestEndpoint {
  ip: string | null;
  host: string | null;
  scheme: 'http' | 'https';
}

/**
 * The one place that decides the client address, host and scheme of a request, for the API, the
 * pages and the static layer: X-Forwarded-For/-Host/-Proto count only with TRUST_PROXY.
 */
export function requestEndpoint(
  req: { headers: IncomingHttpHeaders; remoteAddress?: string; encrypted?: boolean },
  options: Pick<ContextOptions, 'trustProxy'>,
): RequestEndpoint {
  const hops = options.trustProxy;
  const ip = (hops && forwarded(req.headers, 'x-forwarded-for', hops)) || req.remoteAddress || null;
  const host = (hops && forwarded(req.headers, 'x-forwarded-host', 1)) || firstHeader(req.headers.host);
  const proto = hops ? forwarded(req.headers, 'x-forwarded-proto', 1)?.toLowerCase() : null;
  const scheme = proto === 'https' || (!proto && req.encrypted) ? 'https' : 'http';
  return { ip: ip ? ip.replace(/^::ffff:/, '') : null, host: host ? host.slice(0, 255) : null, scheme };
}

/** True over https: the request's own scheme, or a site whose public origin is https (TLS ended in front of us). */
export function isSecureRequest(registry: SiteRegistry, endpoint: RequestEndpoint): boolean {
  return endpoint.scheme === 'https' || registry.origin(registry.forHost(endpoint.host)).startsWith('https:');
}

/** Builds the request context from a node request's headers; used by the API, the pages and the static layer. */
export function createRequestContext(
  registry: SiteRegistry,
  req: { headers: IncomingHttpHeaders; remoteAddress?: string; encrypted?: boolean },
  options: ContextOptions,
  endpoint: RequestEndpoint = requestEndpoint(req, options),
): RequestContext {
  const { ip, host, scheme } = endpoint;
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
  if (!country) country = countryForIp(ip);
  const origin = registry.origin(site);
  const secure = isSecureRequest(registry, endpoint);
  const requestOrigin = `${scheme}://${(host ?? new URL(origin).host).toLowerCase()}`;
  return { site, locale, localeSource: source, country, ip, secure, requestOrigin, origin, knownHost: registry.knowsHost(host) };
}
