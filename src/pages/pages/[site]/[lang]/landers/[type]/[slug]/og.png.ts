import type { APIRoute } from 'astro';
import { landerPaths, shareImageLocale } from '../../../../../../../server/pages/lander-paths';
import { shareImagePng } from '../../../../../../../server/pages/share-image';
import type { Site } from '../../../../../../../shared/site.schema';

export const prerender = true;
export async function getStaticPaths() {
  // One image per site × lander, in the site's own language (all locales' pages point at it).
  return (await landerPaths())
    .filter(({ params, props }) => params.lang === shareImageLocale(props.site))
    .map(({ params, props }) => ({ params, props: { site: props.site, headline: props.data.headline, cta: props.data.cta } }));
}

/** The lander's share image (Open Graph, Twitter): the site's colours, name, headline and call to action. */
export const GET: APIRoute = async ({ props }) => {
  const { site, headline, cta } = props as { site: Site; headline: string; cta: string };
  const png = await shareImagePng(site, headline.replaceAll('{site}', site.name), cta.replaceAll('{site}', site.name));
  return new Response(new Uint8Array(png), { headers: { 'Content-Type': 'image/png' } });
};
