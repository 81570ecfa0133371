import type { APIRoute } from 'astro';
import { landerAlternates, landersOfSite } from '../../../server/pages/lander-paths';
import { alternatesFor } from '../../../server/pages/static-paths';
import { loadSites } from '../../../server/sites/site-registry';
import { STATIC_PAGES } from '../../../shared/constants';
import { LOCALE_TAGS } from '../../../shared/locales';
import type { Site } from '../../../shared/site.schema';

export const prerender = true;
export function getStaticPaths() {
  return loadSites().map((site) => ({ params: { site: site.id }, props: { site } }));
}

/** One sitemap per site: every static page and (where anyone may sign up) lander in every locale, with hreflang alternates. */
export const GET: APIRoute = async ({ props }) => {
  const site = (props as { site: Site }).site;
  // An invitation-only site's landers are for its ad traffic: search visitors could not sign up from them.
  const landers = site.signups === 'all' ? (await landersOfSite(site)).map((l) => landerAlternates(site, l.type, l.slug)) : [];
  const urls = [...['index', ...STATIC_PAGES].map((page) => alternatesFor(site, page)), ...landers].flatMap(({ alternates }) => {
    const links = alternates.map((a) => `<xhtml:link rel="alternate" hreflang="${LOCALE_TAGS[a.locale]}" href="${a.href}"/>`).join('');
    return alternates.map((a) => `<url><loc>${a.href}</loc>${links}</url>`);
  });
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">${urls.join('')}</urlset>\n`;
  return new Response(xml, { headers: { 'Content-Type': 'application/xml; charset=utf-8' } });
};
