import type { APIRoute } from 'astro';
import { APP_ICONS } from '../../../shared/app-icons';
import { loadSites } from '../../../server/sites/site-registry';
import type { Site } from '../../../shared/site.schema';

export const prerender = true;
export function getStaticPaths() {
  return loadSites().map((site) => ({ params: { site: site.id }, props: { site } }));
}

/** Web app manifest per site, so the installed app carries the site's name and colours. */
export const GET: APIRoute = ({ props }) => {
  const site = (props as { site: Site }).site;
  const manifest = {
    name: site.name,
    short_name: site.name,
    start_url: '/members',
    scope: '/',
    display: 'standalone',
    background_color: site.theme.surface ?? '#fffaf7',
    theme_color: site.theme.primary,
    icons: [
      { src: '/favicon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
      ...Object.entries(APP_ICONS)
        .filter(([, icon]) => icon.shape !== 'square')
        .map(([file, icon]) => ({ src: `/${file}`, sizes: `${icon.size}x${icon.size}`, type: 'image/png', purpose: icon.shape === 'maskable' ? 'maskable' : 'any' })),
    ],
  };
  return new Response(JSON.stringify(manifest), { headers: { 'Content-Type': 'application/manifest+json' } });
};
