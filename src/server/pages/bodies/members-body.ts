import { MemberSearchIsland } from '../../../islands/profiles/MemberSearch';
import { countryOptions } from '../../../shared/geo/country-names';
import { regionDataOf } from '../../../shared/geo/regions';
import { GENDERS } from '../../../shared/profile-options';
import { fictionalTexts } from '../../../shared/site-texts';
import { requestTracking } from '../../tracking/tracking.service';
import { html, raw } from '../html';
import { islandMarkup } from '../island-data';
import type { LoadedPage } from '../member-page-data';
import { type BodyLocals, type MemberBody, memberBody } from './body';

/**
 * /members: the first page of results (`network`: the visit's tracking network, `visitNetwork`), server-rendered (the form is a plain GET without JavaScript);
 * the MemberSearch island then loads filters and pages through the search store.
 */
export function membersBody(locals: BodyLocals, url: URL, network: string | null, data: LoadedPage<'members'>): MemberBody {
  const { ctx, t, user } = locals;
  const site = ctx.site;
  const { query, issue, result } = data;
  const { page: _page, ...filters } = query ?? {};
  const invalid = issue === null ? null : /^[a-z_]+\.[a-z_]+$/.test(issue) ? issue : 'error.invalid_input';
  const fictional = fictionalTexts(site, ctx.locale);
  // The reactivation link (/api/reactivate.php) lands here: say that the account is back.
  const reactivated = user !== null && url.searchParams.get('reactivated') === '1';
  const island = islandMarkup('member-search', MemberSearchIsland, ctx.locale, {
    filters, result, network, invalid, genders: site.search_fields.includes('gender') ? [...GENDERS] : [],
    countries: countryOptions(site.countries, ctx.locale), regions: regionDataOf(filters.country, ctx.locale),
    fictional: { icon: fictional.icon, singular: fictional.singular }, member: user !== null,
    liveCam: site.live_cams ? { url: site.live_cams.partner_url, after: site.live_cams.after } : null,
  });
  return memberBody(`${t('members.title')} · ${site.name}`, html`<div class="container members-page">${
    reactivated && html`<p class="alert reactivated" role="status" data-reactivated>${t('members.reactivated')}</p>`
  }<div class="members-head"><h1>${t('search.title')}</h1>${
    user && html`<span class="members-links"><a class="btn btn-outline" href="/match-finder">${t('finder.title')}</a> <a class="btn btn-outline" href="/swipe-game">${t('swipe.title')}</a></span>`
  }</div>${raw(island)}</div>`);
}

/** The tracking network of the visit: on this URL or kept in the visit's cookie since the landing page. */
export const visitNetwork = (url: URL, cookie: string | null | undefined) => requestTracking(url, cookie).network ?? null;
