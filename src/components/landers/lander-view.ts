import type { TFunction } from 'i18next';
import type { Locale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';
import type { LanderType } from '../../shared/tracking';

/** Everything a lander design renders, decided once in LanderPage. */
export interface LanderView {
  site: Site;
  locale: Locale;
  type: LanderType;
  slug: string;
  t: TFunction;
  headline: string;
  cta: string;
  paragraphs: string[];
  benefits: { icon: string; title: string; text: string }[];
  video: string;
  poster: string;
  /** The site's mark of a fictional profile and its name (`fictionalTexts`). */
  fictional: { icon: string; singular: string };
  /** The decorative hero image of the designs that have one (preloaded by the layout). */
  hero?: string;
}

/** Teasers show the gender a site's audience looks for when the lander's filter does not say. */
export function defaultGender(site: Site): 'male' | 'female' {
  return site.niche === 7 ? 'male' : 'female';
}

/** Teaser placeholders that the script fills: enough to lay the page out before data arrives (CLS 0). */
export function teaserSlots(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
