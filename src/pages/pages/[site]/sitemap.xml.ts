import type { APIRoute } from 'astro';
import { alternatesFor } from '../../../server/pages/static-paths';
import { loadSites } from '../../../server/sites/site-registry';
import { STATIC_PAGES } from '../../../shared/constants';
import { LOCALE_TAGS } from '../../../shared/locales';
import type { Site } from '../../../shared/site.schema';

export const prerender = true;
export function getStaticPaths() {
  return loadSites().map((site) => ({ params: { site: site.id }, props: { site } }));
}

/** One sitemap per site: every static page in every locale, with hreflang alternates. */
export const GET: APIRoute = ({ props }) => {
  const site = (props as { site: Site }).site;
  const urls = ['index', ...STATIC_PAGES].flatMap((page) => {
    const { alternates } = alternatesFor(site, page);
    const links = alternates.map((a) => `<xhtml:link rel="alternate" hreflang="${LOCALE_TAGS[a.locale]}" href="${a.href}"/>`).join('');
    return alternates.map((a) => `<url><loc>${a.href}</loc>${links}</url>`);
  });
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">${urls.join('')}</urlset>\n`;
  return new Response(xml, { headers: { 'Content-Type': 'application/xml; charset=utf-8' } });
};
