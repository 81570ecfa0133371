import { ProfileEditorIsland } from '../../../islands/profile/ProfileEditor';
import { FREE_PHOTOS, PREMIUM_PHOTOS } from '../../../shared/constants';
import { countryOptions } from '../../../shared/geo/country-names';
import { regionDataOf } from '../../../shared/geo/regions';
import {
  BODY_TYPES, EYE_COLORS, GENDERS, HAIR_COLORS, INTERESTS, RELATIONSHIP_STATUSES, SEXUALITIES, TATTOO_OPTIONS,
} from '../../../shared/profile-options';
import { html, raw } from '../html';
import { islandMarkup } from '../island-data';
import type { LoadedPage } from '../member-page-data';
import { type BodyLocals, type MemberBody, memberBody } from './body';

/** /profile: the member's own profile in the ProfileEditor island. */
export function ownProfileBody(locals: BodyLocals, data: LoadedPage<'profile'>): MemberBody {
  const { ctx, t, user } = locals;
  const { profile, interests, photos } = data;
  const site = ctx.site;
  const island = islandMarkup('profile-editor', ProfileEditorIsland, ctx.locale, {
    initial: { profile, interests, photos }, visibleFields: [...site.visible_profile_fields, 'gender', ...site.visible_profile_notes],
    countries: countryOptions(site.countries, ctx.locale), regions: regionDataOf(profile.country, ctx.locale),
    options: { gender: [...GENDERS], sexuality: [...SEXUALITIES], relationship_status: [...RELATIONSHIP_STATUSES], hair_color: [...HAIR_COLORS], eye_color: [...EYE_COLORS], body_type: [...BODY_TYPES], tattoos: [...TATTOO_OPTIONS] },
    interests: [...INTERESTS], photoLimit: user?.paid_user ? PREMIUM_PHOTOS : FREE_PHOTOS,
  });
  return memberBody(`${t('myprofile.title')} · ${site.name}`, html`<div class="container container-narrow profile-page"><h1>${t('myprofile.title')}</h1><p class="own-profile-public"><a href="${`/members/${profile.id}`}">${t('myprofile.view_public')}</a></p>${raw(island)}</div>`);
}
