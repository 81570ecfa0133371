import sharp from 'sharp';
import { APP_ICONS, type AppIconName } from '../../shared/app-icons';
import type { Site } from '../../shared/site.schema';

const HEART = 'M32 50 14 32a10 10 0 0 1 18-12 10 10 0 0 1 18 12z';

/**
 * The site's heart mark in its theme colours as SVG. `round`: a circle on transparent (like the favicon);
 * `maskable`: full bleed with the heart inside the 80 % safe zone the launcher may crop to;
 * `square`: full bleed for iOS, which rounds the corners itself and shows transparency as black.
 */
export function appIconSvg(site: Site, shape: 'round' | 'maskable' | 'square'): string {
  const { primary, secondary } = site.theme;
  const background = shape === 'round' ? `<circle cx="32" cy="32" r="32" fill="${primary}"/>` : `<rect width="64" height="64" fill="${primary}"/>`;
  // The heart spans 36 of 64 units; in a maskable icon it shrinks to stay well inside the safe circle.
  const heart = shape === 'maskable' ? `<path d="${HEART}" fill="${secondary}" transform="translate(32 33) scale(.8) translate(-32 -33)"/>` : `<path d="${HEART}" fill="${secondary}"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${background}${heart}</svg>`;
}

/** One app icon as PNG, drawn from the SVG with sharp (at build time: the icon routes are prerendered). */
export async function appIconPng(site: Site, name: AppIconName): Promise<Buffer> {
  const { size, shape } = APP_ICONS[name];
  return sharp(Buffer.from(appIconSvg(site, shape)), { density: Math.ceil((72 * size) / 64) })
    .resize(size, size)
    .png({ compressionLevel: 9 })
    .toBuffer();
}
