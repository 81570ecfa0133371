import { STATIC_PAGES } from '../../shared/constants';
import { LOCALES, type Locale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';
import { loadSites } from '../sites/site-registry';

/** Public URL of a static page for a locale (`/de/terms`, `/de/` for home). */
export function localizedPath(locale: Locale, page: string): string {
  return page === 'index' ? `/${locale}/` : `/${locale}/${page}`;
}

/** Absolute URLs of every locale's copy of a page on a site, for hreflang and the sitemap. */
export function alternatesFor(site: Site, page: string) {
  const origin = site.public_origin ?? `https://${site.domains[0]}`;
  return {
    alternates: LOCALES.map((locale) => ({ locale, href: origin + localizedPath(locale, page) })),
    xDefault: origin + (page === 'index' ? '/' : `/${page}`),
    langHrefs: Object.fromEntries(LOCALES.map((l) => [l, localizedPath(l, page)])) as Record<Locale, string>,
    /** The language switch keeps the address unprefixed (SPEC §9: the locale lives in a cookie). */
    switchHrefs: Object.fromEntries(LOCALES.map((l) => [l, page === 'index' ? '/' : `/${page}`])) as Record<Locale, string>,
  };
}

/** Every site × locale, for getStaticPaths of the prerendered pages. */
export function siteLocalePaths() {
  return loadSites().flatMap((site) => LOCALES.map((lang) => ({ params: { site: site.id, lang }, props: { site, locale: lang } })));
}

/** Every site × locale × static page. */
export function staticPagePaths() {
  return siteLocalePaths().flatMap(({ params, props }) =>
    STATIC_PAGES.map((page) => ({ params: { ...params, page }, props: { ...props, page } })),
  );
}

/** Editor-defined extra pages (SPEC §2 `{token}`): content/pages/en/<token>.md beyond the spec's pages. */
export const PAGE_TOKEN = /^[a-z0-9][a-z0-9-]{0,63}$/;
export async function extraPageTokens(): Promise<string[]> {
  const { getCollection } = await import('astro:content');
  const spec = new Set<string>(['index', ...STATIC_PAGES]);
  return (await getCollection('pages'))
    .map((e) => e.id.split('/'))
    .filter(([locale, token]) => locale === 'en' && PAGE_TOKEN.test(token) && !spec.has(token))
    .map(([, token]) => token);
}

/** Every site × locale × extra page. */
export async function extraPagePaths() {
  const tokens = await extraPageTokens();
  return siteLocalePaths().flatMap(({ params, props }) => tokens.map((page) => ({ params: { ...params, page }, props: { ...props, page } })));
}
