import { getCollection } from 'astro:content';
import { REGIONS } from '../../shared/geo/regions';
import { getT } from '../../shared/i18n';
import type { Locale } from '../../shared/locales';
import type { ProfileCard } from '../../shared/profiles.contract';
import type { Site } from '../../shared/site.schema';
import { fictionalTexts } from '../../shared/site-texts';
import { isLanderSlug } from '../../shared/tracking';
import type { AppContext } from '../app-context';
import { landerTeasers } from '../landers/landers.service';
import { type ProfileView, profileForViewer } from '../profiles/profiles.service';
import { parseId } from '../../shared/ids';

export interface ProfileLanding {
  profile: ProfileView;
  photo: string;
  place: string;
  fictionalLabel: string | null;
  /** Texts of the editor's lander named by the slug (headline and first paragraph), when one was given. */
  intro: { headline: string; text: string } | null;
  more: ProfileCard[];
}

/**
 * Data of a "meet this member" page (/members/{id}/landing, landing2/{slug?}, landing3/{slug?}): null — a 404 — for
 * unknown, deleted, invisible or other-site profiles, and for a slug no lander of this site has.
 */
export async function profileLanding(app: AppContext, site: Site, locale: Locale, rawId: string | undefined, slug: string | undefined, country: string | null): Promise<ProfileLanding | null> {
  const id = parseId(rawId);
  if (id === null) return null;
  let intro: ProfileLanding['intro'] = null;
  if (slug !== undefined) {
    if (!isLanderSlug(slug)) return null;
    const entries = await getCollection('landers', (e) => e.id.endsWith(`/${slug}`) && (!e.data.niches || e.data.niches.includes(site.niche)));
    const entry = entries.find((e) => e.id.startsWith(`${locale}/`)) ?? entries.find((e) => e.id.startsWith('en/'));
    if (!entry) return null;
    const fill = (s: string) => s.replaceAll('{site}', site.name);
    intro = { headline: fill(entry.data.headline), text: fill((entry.body ?? '').split(/\n\s*\n/)[0]?.trim() ?? '') };
  }
  // Visitors only (members are sent to the profile itself), so no blocks apply; the rest is the profile rule.
  const profile = await profileForViewer(app, site, id, null);
  if (!profile) return null;
  const main = profile.photos.find((p) => p.is_main) ?? profile.photos[0];
  const region = profile.region ? REGIONS[profile.country]?.find((r) => r.code === profile.region) : undefined;
  const place = profile.city ?? region?.names?.[locale] ?? region?.name ?? profile.country;
  const fictional = fictionalTexts(site, locale);
  const teasers = await landerTeasers(app, site, null, { gender: profile.gender, limit: 5 }, country);
  return {
    profile,
    photo: main ? `/uploads/${main.filename}` : '/landers/teaser.svg',
    place,
    fictionalLabel: profile.fictional ? `${fictional.icon} ${fictional.singular}` : null,
    intro,
    more: teasers.profiles.filter((p) => p.id !== profile.id).slice(0, 4),
  };
}

/** Translated texts of a profile landing page. */
export function profileLandingTexts(site: Site, locale: Locale, data: ProfileLanding) {
  const t = getT(locale);
  const { name, age } = data.profile;
  return {
    title: `${t('lander.profile_title', { name })} · ${site.name}`,
    heading: t('lander.profile_title', { name }),
    intro: t('lander.profile_intro', { name, age, place: data.place, site: site.name }),
    cta: t('lander.profile_cta', { name }),
    free: t('lander.profile_free', { name }),
    waiting: t('lander.profile_waiting', { name }),
    about: t('lander.profile_about', { name }),
    interests: t('lander.profile_interests'),
    more: t('lander.profile_more'),
    photoAlt: t('lander.profile_photo', { name }),
  };
}
