import type { APIRoute } from 'astro';
import { appIconPng } from '../../../server/pages/app-icon';
import { APP_ICONS, type AppIconName } from '../../../shared/app-icons';
import { loadSites } from '../../../server/sites/site-registry';
import type { Site } from '../../../shared/site.schema';

export const prerender = true;
export function getStaticPaths() {
  return loadSites().flatMap((site) =>
    Object.keys(APP_ICONS).map((file) => ({ params: { site: site.id, icon: file.replace(/\.png$/, '') }, props: { site, file } })));
}

/** The site's app icons (manifest, apple-touch-icon) in its theme colours, made at build time. */
export const GET: APIRoute = async ({ props }) => {
  const { site, file } = props as { site: Site; file: AppIconName };
  return new Response(new Uint8Array(await appIconPng(site, file)), { headers: { 'Content-Type': 'image/png' } });
};
