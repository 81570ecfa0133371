import { ProfileActionsIsland } from '../../../islands/profiles/ProfileActions';
import { regionsFor } from '../../../shared/geo/regions';
import { photoUrl } from '../../../shared/profiles.contract';
import { fictionalTexts } from '../../../shared/site-texts';
import type { ProfileView } from '../../profiles/profiles.service';
import { html, raw } from '../html';
import { islandMarkup } from '../island-data';
import { type BodyLocals, type MemberBody, memberBody } from './body';

/** The profile screen of /members/{id} and /likes/m/{id}, or the notice for a member its owner blocked. */
export function profileScreenBody(locals: BodyLocals, screen: { profile: ProfileView | null; blockedBy: string | null }): MemberBody {
  const { ctx, t } = locals;
  const { profile, blockedBy } = screen;
  if (!profile) {
    return memberBody(`${blockedBy} · ${ctx.site.name}`, html`<section class="container profile-blocked"><h1>${t('profile.blocked', { name: blockedBy })}</h1><p><a href="/members">${t('members.title')}</a></p></section>`, 403);
  }
  return memberBody(`${profile.name} · ${ctx.site.name}`, profileView(locals, profile));
}

function profileView(locals: BodyLocals, profile: ProfileView) {
  const { ctx, t, user } = locals;
  const { site, locale } = ctx;
  const fictional = fictionalTexts(site, locale);
  const region = profile.region ? regionsFor(profile.country, locale).find((r) => r.code === profile.region)?.name : null;
  const fields = site.visible_profile_fields;
  const details: [string, string | null][] = [
    ['signup.label_sexuality', fields.includes('sexuality') ? t(`option.sexuality.${profile.sexuality}`) : null],
    ['signup.label_relationship_status', profile.relationship_status && fields.includes('relationship_status') ? t(`option.relationship_status.${profile.relationship_status}`) : null],
    ['signup.label_hair_color', profile.hair_color && fields.includes('hair_color') ? t(`option.hair_color.${profile.hair_color}`) : null],
    ['signup.label_eye_color', profile.eye_color && fields.includes('eye_color') ? t(`option.eye_color.${profile.eye_color}`) : null],
    ['signup.label_body_type', profile.body_type && fields.includes('body_type') ? t(`option.body_type.${profile.body_type}`) : null],
    ['signup.label_tattoos', profile.tattoos && fields.includes('tattoos') ? t(`option.tattoos.${profile.tattoos}`) : null],
  ];
  const main = profile.photos[0];
  const photoAlt = t('profile.photo_of', { name: profile.name });
  const signupHref = `/members/${profile.id}/signup`;
  const actions = user && !profile.own
    ? raw(islandMarkup('profile-actions-island', ProfileActionsIsland, locale, { profileId: profile.id, name: profile.name, liked: profile.liked, blocked: profile.blockedByMe }))
    : !user
      ? html`<div class="action-row"><a class="btn btn-primary" href="${signupHref}" data-open-signup data-target="${profile.id}" data-target-name="${profile.name}">${t('profile.like')}</a> <a class="btn btn-secondary" href="${signupHref}" data-open-signup data-target="${profile.id}" data-target-name="${profile.name}">${t('profile.chat')}</a> <a class="btn btn-outline" href="${signupHref}" data-open-signup data-target="${profile.id}" data-target-name="${profile.name}">${t('profile.gift')}</a></div>`
      : html`<p><a class="btn btn-outline" href="/profile">${t('nav.my_profile')}</a></p>`;
  return html`<article class="container profile-view" data-profile-id="${profile.id}"><div class="profile-photos"><img class="profile-main" src="${photoUrl(main?.filename)}" alt="${photoAlt}" width="600" height="600">${
    // Every photo as a thumbnail that shows it in the large frame (src/core/profiles/photo-switcher.ts); a link to the
    // photo itself without script.
    profile.photos.length > 1 && html`<ul class="profile-thumbs" role="list">${profile.photos.map((p, i) => html`<li><a class="profile-thumb" href="${photoUrl(p.filename)}" aria-current="${i === 0 ? 'true' : 'false'}"><img src="${`/uploads/${p.thumb_filename}`}" alt="${photoAlt}" width="96" height="96" loading="lazy"></a></li>`)}</ul>`
  }${
    profile.hiddenPhotos > 0 && html`<p class="more-photos">${t('profile.more_photos', { count: profile.hiddenPhotos })} ${
      user ? html`<a href="/premium">${t('nav.get_premium')}</a>` : html`<a href="${signupHref}" data-open-signup data-target="${profile.id}" data-target-name="${profile.name}">${t('nav.signup')}</a>`
    }</p>`
  }</div><div class="profile-info"><h1>${profile.name}, ${profile.age}${
    profile.fictional && html` <span class="fictional-badge" title="${fictional.warning}">${fictional.icon} ${fictional.singular}</span>`
  }</h1><p class="profile-place">${[profile.city, region].filter(Boolean).join(', ')}</p>${
    profile.fictional && html`<p class="fictional-warning">${fictional.warning}</p>`
  }${actions}<dl class="profile-details">${
    details.filter(([, value]) => value).map(([label, value]) => html`<dt>${t(label)}</dt><dd>${value}</dd>`)
  }</dl>${
    profile.notes.map((note) => html`<section class="profile-note" data-note="${note.key}"><h2>${t(`profile.note_${note.key}`)}</h2><p>${note.text}</p></section>`)
  }${
    profile.interests.length > 0 && fields.includes('interests') && html`<section><h2>${t('profile.interests')}</h2><ul class="chips" role="list">${profile.interests.map((i) => html`<li>${t(`interest.${i}`)}</li>`)}</ul></section>`
  }</div></article>`;
}
