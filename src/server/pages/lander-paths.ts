import { type CollectionEntry, getCollection } from 'astro:content';
import { LOCALES, type Locale, matchLocale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';
import { DEFAULT_LANDER_SLUG, isLanderType, type LanderType } from '../../shared/tracking';
import { loadSites } from '../sites/site-registry';

export type LanderData = CollectionEntry<'landers'>['data'];

/** Public path of a lander in a locale (`/de/landers/gallery`, `/de/landers/gallery/mature`). */
export function landerPath(locale: Locale | null, type: LanderType, slug: string): string {
  return `${locale ? `/${locale}` : ''}/landers/${type}${slug === DEFAULT_LANDER_SLUG ? '' : `/${slug}`}`;
}

/** Absolute URLs of every locale's copy of a lander, for hreflang and the sitemap. */
export function landerAlternates(site: Site, type: LanderType, slug: string) {
  const origin = site.public_origin ?? `https://${site.domains[0]}`;
  return {
    alternates: LOCALES.map((locale) => ({ locale, href: origin + landerPath(locale, type, slug) })),
    xDefault: origin + landerPath(null, type, slug),
    langHrefs: Object.fromEntries(LOCALES.map((l) => [l, landerPath(l, type, slug)])) as Record<Locale, string>,
  };
}

/** The landers English defines (the reference locale): type, slug and data, checked for a valid type. */
async function referenceLanders() {
  const entries = await getCollection('landers');
  const byId = new Map(entries.map((e) => [e.id, e]));
  const refs = entries.filter((e) => e.id.startsWith('en/')).map((e) => {
    const [, type, slug] = e.id.split('/');
    if (!isLanderType(type)) throw new Error(`content/landers/en/${type}: unknown lander type`);
    if (type === 'tinderswipe' && slug !== DEFAULT_LANDER_SLUG) throw new Error('content/landers: tinderswipe has no slugs (SPEC §2)');
    return { type, slug, entry: e };
  });
  return { byId, refs };
}

/** Landers a site builds: those without a niche list and those listing its niche. */
export async function landersOfSite(site: Site) {
  const { refs } = await referenceLanders();
  return refs.filter((r) => !r.entry.data.niches || r.entry.data.niches.includes(site.niche));
}

/** Every site × locale × lander, for getStaticPaths; a locale without its own file uses the English one. */
export async function landerPaths() {
  const { byId, refs } = await referenceLanders();
  return loadSites().flatMap((site) =>
    LOCALES.flatMap((locale) =>
      refs
        .filter((r) => !r.entry.data.niches || r.entry.data.niches.includes(site.niche))
        .map(({ type, slug, entry: ref }) => {
          const entry = byId.get(`${locale}/${type}/${slug}`) ?? ref;
          return { params: { site: site.id, lang: locale, type, slug }, props: { site, locale, type, slug, data: entry.data as LanderData, body: entry.body ?? '' } };
        }),
    ),
  );
}

/** Share images are drawn once per site and lander, in the site's own language. */
export function shareImageLocale(site: Site): Locale {
  return matchLocale(site.domain_language.slice(0, 2)) ?? 'en';
}
