import { useStore } from '@nanostores/react';
import type { TFunction } from 'i18next';
import { type FormEvent, type MouseEvent, useEffect, useRef, useState } from 'react';
import { $regionOptions, loadRegionOptions } from '../../core/geo/region-options';
import { $pendingActions, runAction } from '../../core/toast/action.store';
import { showToast } from '../../core/toast/toast.store';
import {
  $currentSearchPage, $search, $searchError, $searchLikes, $searchLoading, filtersOf, initSearch, likeFromSearch, loadPage,
  type NearMeOutcome, retrySearch, SEARCH_FAILED, SEARCH_FILTERS, type SearchFilter, type SearchFilters, searchNearMe, searchParams, setFilters,
} from '../../core/profiles/search.store';
import { photoUrl, type ProfileCard, SEARCH_COUNT_CAP, SEARCH_PAGE_SIZE, type SearchResult } from '../../shared/profiles.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';
import { withIslandData } from '../shared/island-data';
import { FictionalIcon } from '../shared/FictionalIcon';

interface Props extends IslandI18n {
  filters: SearchFilters;
  result: SearchResult;
  network: string | null;
  /** Catalog key when the URL's filters were refused. */
  invalid: string | null;
  /** Genders to search by; empty when the site does not offer that filter. */
  genders: string[];
  countries: { code: string; name: string }[];
  regions: Record<string, { code: string; name: string }[]>;
  fictional: { icon: string; singular: string };
  member: boolean;
  /** Live cam partner card (site flag `live_cams`), or null. */
  liveCam?: { url: string; after: number } | null;
}

type Draft = Record<SearchFilter, string>;
const toDraft = (filters: SearchFilters): Draft =>
  Object.fromEntries(SEARCH_FILTERS.map((key) => [key, filters[key] === undefined ? '' : String(filters[key])])) as Draft;
// Ctrl/Cmd/Shift/middle clicks keep the browser's own meaning (new tab, new window).
const plainClick = (event: MouseEvent) => event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;

/**
 * Member search driven by the search store: the server renders the first page and the form works as a
 * plain GET without JavaScript; with it, filters and pages load through the store without a reload.
 */
export function MemberSearch(props: Props) {
  const t = useIslandT(props);
  // Seeded before the first read, so hydration shows exactly the server's page. Never on the server,
  // where one store would be shared by every request.
  useState(() => {
    if (typeof window !== 'undefined') initSearch({ filters: props.filters, result: props.result, network: props.network });
  });
  const state = useStore($search);
  const current = useStore($currentSearchPage);
  const loading = useStore($searchLoading);
  const storeError = useStore($searchError);
  const storedLikes = useStore($searchLikes);
  const loadedRegions = useStore($regionOptions);
  const seeded = state.didInit;
  // The server (no store) shows the likes its answer names, as the seeded store does in the browser.
  const likes: ReadonlySet<number> = seeded ? storedLikes : new Set(props.result.likedIds ?? []);
  const filters = seeded ? filtersOf(state) : props.filters;
  const numResults = seeded ? state.numResults : props.result.numResults;
  const page = seeded ? current : {
    pageNumber: props.result.pageNumber,
    results: props.result.results,
    pageCount: Math.max(1, Math.ceil(props.result.numResults / SEARCH_PAGE_SIZE)),
  };
  const similar = seeded ? { results: state.similar, count: state.similarCount } : { results: props.result.similar, count: props.result.similarCount };

  const [draft, setDraft] = useState(() => toDraft(props.filters));
  // The page carries only the shown country's regions; another country's load when it is chosen.
  useEffect(() => {
    if (draft.country && !props.regions[draft.country]) void loadRegionOptions(draft.country, props.locale);
  }, [draft.country, props.regions, props.locale]);
  const [urlError, setUrlError] = useState(props.invalid);
  const [nearMe, setNearMe] = useState<NearMeOutcome | 'locating' | null>(null);
  const [canLocate, setCanLocate] = useState(false);
  const countRef = useRef<HTMLParagraphElement>(null);
  const filtersRef = useRef<HTMLDetailsElement>(null);
  const error = storeError ?? urlError;

  // The form follows filters the store sets itself (the position prefill), not every page load.
  useEffect(() => {
    let shown = searchParams(filtersOf($search.get())).toString();
    return $search.listen((next) => {
      const key = searchParams(filtersOf(next)).toString();
      if (key === shown) return;
      shown = key;
      setDraft(toDraft(filtersOf(next)));
    });
  }, []);

  // "Near me" needs JavaScript and a browser that can locate; without a click it only fills when allowed already.
  useEffect(() => {
    setCanLocate('geolocation' in navigator);
    void searchNearMe({ ask: false, countries: props.countries.map((c) => c.code) });
  }, [props.countries]);

  async function askNearMe() {
    setNearMe('locating');
    setNearMe(await searchNearMe({ ask: true, countries: props.countries.map((c) => c.code) }));
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // On a phone the results come back into view: the filters fold away.
    if (filtersRef.current && window.matchMedia('(max-width: 991.98px)').matches) filtersRef.current.open = false;
    setUrlError(null);
    setNearMe(null);
    void setFilters(draft);
  }

  async function goToPage(event: MouseEvent, pageNumber: number) {
    if (!plainClick(event)) return;
    event.preventDefault();
    if (await loadPage(pageNumber)) countRef.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }

  // The like's outcome comes as a toast (a failure with "Try again"); its button is disabled while it is sent.
  const pending = useStore($pendingActions);
  async function like(profile: ProfileCard) {
    const outcome = await runAction(`like.${profile.id}`, () => likeFromSearch(profile.id), { savingToast: false, success: false });
    if (outcome.ok) showToast({ key: `action:like.${profile.id}`, tone: 'success', text: outcome.value.match ? t('like.match', { name: profile.name }) : t('like.sent', { name: profile.name }) });
  }

  const href = (pageNumber: number) => {
    const query = searchParams(filters, pageNumber, props.network).toString();
    return query ? `/members?${query}` : '/members';
  };
  const regions = props.regions[draft.country] ?? loadedRegions[draft.country] ?? [];
  // What the Filters control names: the search as it runs (not the draft being edited).
  const countryName = props.countries.find((c) => c.code === filters.country)?.name;
  const regionName = filters.countryregion ? (props.regions[filters.country ?? ''] ?? loadedRegions[filters.country ?? ''] ?? []).find((r) => r.code === filters.countryregion)?.name : undefined;
  const ages = filters.min_age !== undefined && filters.max_age !== undefined ? `${filters.min_age}–${filters.max_age}`
    : filters.min_age !== undefined ? `${filters.min_age}+` : filters.max_age !== undefined ? `18–${filters.max_age}` : undefined;
  const activeFilters = [
    filters.gender === 'female' ? t('search.filter_women') : filters.gender === 'male' ? t('search.filter_men') : undefined,
    ages, regionName ?? countryName,
  ].filter((part): part is string => Boolean(part));
  const nearMeText = { locating: t('search.locating'), failed: t('search.near_me_failed'), elsewhere: t('search.near_me_elsewhere') };
  const card = (profile: ProfileCard) => (
    <ResultCard key={profile.id} profile={profile} t={t} fictional={props.fictional} member={props.member} liked={likes.has(profile.id)} sending={Boolean(pending[`like.${profile.id}`])} onLike={like} />
  );

  return (
    <div className="member-search">
      {/* Phones: the filters behind one control that names the active ones, so the page opens on people. */}
      <details className="search-filters" ref={filtersRef}>
        <summary className="btn btn-outline filters-toggle">
          <span className="filters-label">{t('search.filters')}</span>
          {activeFilters.length > 0 && <span className="filters-active">{activeFilters.join(' · ')}</span>}
        </summary>
      <form className="search-form" method="get" action="/members" onSubmit={submit}>
        {props.network && <input type="hidden" name="network" value={props.network} />}
        {props.genders.length > 0 && (
          <div className="field">
            <label htmlFor="s-gender">{t('search.gender')}</label>
            <select id="s-gender" name="gender" value={draft.gender} onChange={(e) => setDraft({ ...draft, gender: e.target.value })}>
              <option value="">{t('search.any')}</option>
              {props.genders.map((g) => <option key={g} value={g}>{t(`option.gender.${g}`)}</option>)}
            </select>
          </div>
        )}
        <div className="field">
          <label htmlFor="s-country">{t('search.country')}</label>
          <select id="s-country" name="country" value={draft.country} onChange={(e) => setDraft({ ...draft, country: e.target.value, countryregion: '' })}>
            <option value="">{t('search.any')}</option>
            {props.countries.map((c) => <option key={c.code} value={c.code}>{c.name}</option>)}
          </select>
        </div>
        {regions.length > 0 && (
          <div className="field">
            <label htmlFor="s-region">{t('search.region')}</label>
            <select id="s-region" name="countryregion" value={draft.countryregion} onChange={(e) => setDraft({ ...draft, countryregion: e.target.value })}>
              <option value="">{t('search.any')}</option>
              {regions.map((r) => <option key={r.code} value={r.code}>{r.name}</option>)}
            </select>
          </div>
        )}
        <div className="field">
          <label htmlFor="s-min">{t('search.min_age')}</label>
          <input id="s-min" name="min_age" type="number" min={18} max={99} inputMode="numeric" value={draft.min_age} onChange={(e) => setDraft({ ...draft, min_age: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="s-max">{t('search.max_age')}</label>
          <input id="s-max" name="max_age" type="number" min={18} max={99} inputMode="numeric" value={draft.max_age} onChange={(e) => setDraft({ ...draft, max_age: e.target.value })} />
        </div>
        <div className="field search-submit">
          <button className="btn btn-primary" type="submit">{t('search.submit')}</button>
          {/* Rendered from the start, invisible until the browser says it can locate: its line is kept, so nothing moves when it shows. */}
          <button className="btn btn-outline" type="button" onClick={askNearMe} disabled={!canLocate || nearMe === 'locating'}
            style={canLocate ? undefined : { visibility: 'hidden' }} aria-hidden={canLocate ? undefined : true} tabIndex={canLocate ? undefined : -1}>{t('search.near_me')}</button>
        </div>
      </form>
      </details>
      {nearMe && nearMe !== 'filled' && nearMe !== 'skipped' && (
        <p className={nearMe === 'locating' ? 'notice' : 'alert'} role="status">{nearMeText[nearMe]}</p>
      )}
      {error === SEARCH_FAILED ? (
        <div className="alert alert-danger search-failed" role="alert">
          <span>{t(error)}</span>
          <button type="button" className="btn btn-outline btn-sm" onClick={() => void retrySearch()} disabled={loading}>{t('common.try_again')}</button>
        </div>
      ) : error && <p className="alert alert-danger" role="alert">{t(error)}</p>}
      <p className="result-count" role="status" ref={countRef}>
        {loading ? t('common.loading') : numResults > SEARCH_COUNT_CAP
          ? t('search_count.more', { number: new Intl.NumberFormat(props.locale).format(SEARCH_COUNT_CAP) })
          : numResults > 0 ? t('search.results', { count: numResults }) : t('search.none')}
      </p>
      <ul className="profile-grid" role="list" aria-busy={loading}>
        {page.results.slice(0, props.liveCam?.after ?? page.results.length).map(card)}
        {props.liveCam && page.results.length > 0 && <LiveCamCard url={props.liveCam.url} t={t} />}
        {props.liveCam && page.results.slice(props.liveCam.after).map(card)}
      </ul>
      {page.pageCount > 1 && (
        <nav className="pager" aria-label={t('search.pages')}>
          {page.pageNumber > 1 && (
            <a className="btn btn-outline" href={href(page.pageNumber - 1)} rel="prev" onClick={(e) => goToPage(e, page.pageNumber - 1)}>{t('search.previous')}</a>
          )}
          <span aria-current="page">{t('search.page', { page: page.pageNumber })}</span>
          {page.pageNumber < page.pageCount && (
            <a className="btn btn-outline" href={href(page.pageNumber + 1)} rel="next" onClick={(e) => goToPage(e, page.pageNumber + 1)}>{t('search.next')}</a>
          )}
        </nav>
      )}
      {similar.count > 0 && (
        <section className="similar" aria-labelledby="similar-title">
          <h2 id="similar-title">{t('search.similar')}</h2>
          <p className="similar-count">{t('search.similar_count', { count: similar.count })}</p>
          <ul className="profile-grid" role="list">{similar.results.map(card)}</ul>
        </section>
      )}
    </div>
  );
}

interface CardProps {
  profile: ProfileCard;
  t: TFunction;
  fictional: { icon: string; singular: string };
  member: boolean;
  liked: boolean;
  /** The like is on its way: the button is disabled and says so. */
  sending: boolean;
  onLike(profile: ProfileCard): void;
}

/** A live cam partner card: clearly marked, opens the partner's site in a new tab (sponsored link). */
function LiveCamCard({ url, t }: { url: string; t: TFunction }) {
  return (
    <li className="profile-card live-cam-card" data-live-cam>
      {/* biome-ignore lint/a11y/useAnchorContent: the title link below is the accessible one; the picture repeats it for pointers */}
      <a href={url} target="_blank" rel="sponsored noopener noreferrer" tabIndex={-1} aria-hidden="true">
        <img src="/landers/video-poster.svg" alt="" width="320" height="320" loading="lazy" decoding="async" />
      </a>
      <span className="live-cam-badge">{t('livecam.badge')}</span>
      <div className="card-body">
        <p className="card-title"><a href={url} target="_blank" rel="sponsored noopener noreferrer">{t('livecam.title')}</a></p>
        <p className="card-meta">{t('livecam.text')}</p>
        <a className="btn btn-outline card-like" href={url} target="_blank" rel="sponsored noopener noreferrer">{t('livecam.cta')}</a>
      </div>
    </li>
  );
}

/** The island as pages mount it: its inputs travel as island data (one JSON block, not Astro's props). */
export const MemberSearchIsland = withIslandData(MemberSearch);

/** One result: photo, name (with the fictional icon), age and city, and a like button (visitors: sign up). */
function ResultCard({ profile, t, fictional, member, liked, sending, onLike }: CardProps) {
  return (
    <li className="profile-card" data-profile-id={profile.id}>
      {/* biome-ignore lint/a11y/useAnchorContent: the name link below is the accessible one; the photo repeats it for pointers */}
      <a href={`/members/${profile.id}`} tabIndex={-1} aria-hidden="true">
        <img src={photoUrl(profile.thumb)} alt="" width="320" height="320" loading="lazy" />
      </a>
      <div className="card-body">
        <p className="card-title">
          <a href={`/members/${profile.id}`}>{profile.name}</a>
          {profile.fictional && <FictionalIcon icon={fictional.icon} label={fictional.singular} />}
        </p>
        <p className="card-meta">{`${t('members.age', { age: profile.age })}${profile.city ? ` · ${profile.city}` : ''}`}</p>
        {member ? (
          <button type="button" className="btn btn-primary card-like" aria-disabled={liked || sending} aria-pressed={liked} onClick={() => { if (!liked && !sending) onLike(profile); }}>
            {liked ? t('profile.liked') : sending ? t('chat.sending') : t('profile.like')}
          </button>
        ) : (
          <a className="btn btn-primary card-like" href={`/members/${profile.id}/signup`} data-open-signup data-target={profile.id} data-target-name={profile.name}>{t('profile.like')}</a>
        )}
      </div>
    </li>
  );
}
