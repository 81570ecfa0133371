import type { APIRoute } from 'astro';
import { loadSites } from '../../../server/sites/site-registry';
import type { Site } from '../../../shared/site.schema';

export const prerender = true;
export function getStaticPaths() {
  return loadSites().map((site) => ({ params: { site: site.id }, props: { site } }));
}

export const GET: APIRoute = ({ props }) => {
  const site = (props as { site: Site }).site;
  const body = `User-agent: *\nDisallow: /api/\nDisallow: /members\nDisallow: /chats\nDisallow: /likes\nSitemap: https://${site.domains[0]}/sitemap.xml\n`;
  return new Response(body, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
};
