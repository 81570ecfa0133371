import sharp from 'sharp';
import type { Site } from '../../shared/site.schema';

const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Breaks a headline into lines of at most `max` characters (by words). */
function lines(text: string, max: number): string[] {
  const out: string[] = [];
  for (const word of text.split(/\s+/)) {
    const last = out[out.length - 1];
    if (last !== undefined && (last + ' ' + word).length <= max) out[out.length - 1] = `${last} ${word}`;
    else out.push(word);
  }
  return out.slice(0, 3);
}

/** A 1200×630 PNG share card drawn from SVG with sharp (fonts: the system's DejaVu/Liberation). */
export async function shareImagePng(site: Site, headline: string, cta: string): Promise<Buffer> {
  const { primary, secondary } = site.theme;
  const title = lines(headline, 24).map((l, i) => `<tspan x="80" dy="${i === 0 ? 0 : 84}">${escapeXml(l)}</tspan>`).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630" viewBox="0 0 1200 630">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${secondary}"/><stop offset="1" stop-color="${primary}"/></linearGradient></defs>
  <rect width="1200" height="630" fill="url(#g)"/>
  <circle cx="1040" cy="120" r="220" fill="#fff" opacity=".08"/><circle cx="1120" cy="560" r="160" fill="#fff" opacity=".06"/>
  <text x="80" y="110" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="40" font-weight="700" fill="#fff">♥ ${escapeXml(site.name)}</text>
  <text x="80" y="260" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="72" font-weight="700" fill="#fff">${title}</text>
  <rect x="80" y="490" rx="40" width="${Math.min(1040, 90 + cta.length * 24)}" height="80" fill="#fff"/>
  <text x="125" y="543" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="36" font-weight="700" fill="${secondary}">${escapeXml(cta)}</text>
</svg>`;
  return sharp(Buffer.from(svg)).png({ compressionLevel: 6 }).toBuffer();
}
