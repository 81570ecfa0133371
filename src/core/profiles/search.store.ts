import { atom, computed } from 'nanostores';
import * as v from 'valibot';
import { type ProfileCard, SEARCH_PAGE_SIZE, type SearchQuery, SearchQuerySchema, type SearchResult } from '../../shared/profiles.contract';
import { ApiError, api, call } from '../api/client';
import { locate, readGeoPermission } from '../geo/store';
import { likeProfile } from './actions';

/** The search filters, in the order they appear in URLs. */
export const SEARCH_FILTERS = ['gender', 'country', 'countryregion', 'min_age', 'max_age'] as const;
export type SearchFilter = (typeof SEARCH_FILTERS)[number];
export type SearchFilters = Pick<SearchQuery, SearchFilter>;
/** Filters as a form hands them in: text, where empty means "any". */
export type SearchFilterInput = Partial<Record<SearchFilter, string | number | null>>;

/** SPEC §3 Search state: the filters, the result pages seen so far and what came with them. */
export interface SearchState extends SearchFilters {
  didInit: boolean;
  /** Result pages by page number, for the current filters only. */
  pages: Record<number, ProfileCard[]>;
  numResults: number;
  /** Profiles seen under earlier filters, kept by id so they can still be shown without a request. */
  otherCachedProfiles: Record<number, ProfileCard>;
  similar: ProfileCard[];
  similarCount: number;
}

/** Profiles kept in otherCachedProfiles at most (the newest win). */
export const OTHER_CACHED_LIMIT = 500;
const EMPTY: SearchState = { didInit: false, pages: {}, numResults: 0, otherCachedProfiles: {}, similar: [], similarCount: 0 };

export const $search = atom<SearchState>(EMPTY);
/** The page number on screen. */
export const $searchPageNumber = atom(1);
export const $searchLoading = atom(false);
/** Catalog key of the last problem (invalid filters, failed request), or null. */
export const $searchError = atom<string | null>(null);
/** The error of a search that did not go through (network, server): the results before it stay, with a retry. */
export const SEARCH_FAILED = 'search.failed';
/** Profiles liked from the results during this visit. */
export const $searchLikes = atom<ReadonlySet<number>>(new Set());

/** The page on screen: its number, its results and how many pages there are. */
export const $currentSearchPage = computed([$search, $searchPageNumber], (state, pageNumber) => ({
  pageNumber,
  results: state.pages[pageNumber] ?? [],
  pageCount: Math.max(1, Math.ceil(state.numResults / SEARCH_PAGE_SIZE)),
}));

// Not state the screen shows: the tracking network passed along, and bookkeeping against stale answers.
let network: string | undefined;
let generation = 0;
let wantedPage = 1;
/** The last search asked for, run again by retrySearch. */
let lastSearch: (() => Promise<ProfileCard[] | null>) | null = null;
const inflight = new Map<number, Promise<ProfileCard[] | null>>();

/** Just the filters of a state (or of anything carrying them). */
export function filtersOf(source: Partial<SearchFilters>): SearchFilters {
  const filters: Record<string, unknown> = {};
  for (const key of SEARCH_FILTERS) if (source[key] !== undefined) filters[key] = source[key];
  return filters as SearchFilters;
}

const sameFilters = (a: SearchFilters, b: SearchFilters) => SEARCH_FILTERS.every((key) => a[key] === b[key]);

/** The query of a search as in /members and /api/search.php: filters, page (left out for 1) and network. */
export function searchParams(filters: SearchFilters, page = 1, trackingNetwork?: string | null): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of SEARCH_FILTERS) if (filters[key] !== undefined) params.set(key, String(filters[key]));
  if (page > 1) params.set('page', String(page));
  if (trackingNetwork) params.set('network', trackingNetwork);
  return params;
}

/** Checks form input with the endpoint's own schema: the filters, or the catalog key of the first problem. */
export function parseSearchFilters(input: SearchFilterInput): SearchFilters | { error: string } {
  const query: Record<string, string> = {};
  for (const key of SEARCH_FILTERS) {
    const value = input[key];
    if (value !== undefined && value !== null && String(value).trim() !== '') query[key] = String(value).trim();
  }
  const parsed = v.safeParse(SearchQuerySchema, query);
  if (!parsed.success) {
    const message = parsed.issues[0].message;
    return { error: /^[a-z_]+\.[a-z_]+$/.test(message) ? message : 'error.invalid_input' };
  }
  return filtersOf(parsed.output);
}

/** Everything the state has cached so far, to keep in otherCachedProfiles when the filters change. */
function retire(state: SearchState): Record<number, ProfileCard> {
  const seen = [...Object.values(state.otherCachedProfiles), ...Object.values(state.pages).flat(), ...state.similar];
  const byId = new Map<number, ProfileCard>();
  for (const profile of seen) {
    byId.delete(profile.id);
    byId.set(profile.id, profile);
  }
  return Object.fromEntries([...byId].slice(-OTHER_CACHED_LIMIT));
}

/** Puts the filters and page on screen into the address bar, so the search can be shared or reloaded. */
function syncUrl() {
  if (typeof history === 'undefined' || typeof location === 'undefined') return;
  const query = searchParams(filtersOf($search.get()), $searchPageNumber.get(), network).toString();
  const url = `${location.pathname}${query ? `?${query}` : ''}${location.hash}`;
  if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(history.state, '', url);
}

function showPage(pageNumber: number) {
  $searchPageNumber.set(pageNumber);
  syncUrl();
}

function startOver(filters: SearchFilters) {
  generation++;
  inflight.clear();
  $searchLoading.set(false);
  const state = $search.get();
  $search.set({ ...EMPTY, ...filters, didInit: true, otherCachedProfiles: state.didInit ? retire(state) : state.otherCachedProfiles });
}

export interface SearchSeed {
  filters: SearchFilters;
  result: SearchResult;
  network?: string | null;
}

/** Seeds the state from the server-rendered page and its URL filters, so that page is never fetched again. */
export function initSearch({ filters, result, network: trackingNetwork }: SearchSeed): void {
  network = trackingNetwork ?? undefined;
  const wanted = filtersOf(filters);
  if (!$search.get().didInit || !sameFilters(filtersOf($search.get()), wanted)) startOver(wanted);
  const state = $search.get();
  $search.set({
    ...state,
    pages: { ...state.pages, [result.pageNumber]: result.results },
    numResults: result.numResults,
    similar: result.similar,
    similarCount: result.similarCount,
  });
  rememberLikes(result);
  wantedPage = result.pageNumber;
  $searchPageNumber.set(result.pageNumber);
}

/** Profiles the member already liked show as liked. */
function rememberLikes(result: SearchResult) {
  if (!result.likedIds?.length) return;
  const likes = new Set($searchLikes.get());
  for (const id of result.likedIds) likes.add(id);
  $searchLikes.set(likes);
}

async function fetchPage(pageNumber: number, forGeneration: number): Promise<ProfileCard[] | null> {
  const searchParamsForPage = searchParams(filtersOf($search.get()), pageNumber, network);
  try {
    const result = await call(() => api.get('search.php', { searchParams: searchParamsForPage }).json<SearchResult>());
    if (forGeneration !== generation) return null;
    const state = $search.get();
    $search.set({
      ...state,
      pages: { ...state.pages, [pageNumber]: result.results },
      numResults: result.numResults,
      similar: result.similar,
      similarCount: result.similarCount,
    });
    rememberLikes(result);
    return result.results;
  } catch (err) {
    if (forGeneration === generation) $searchError.set(err instanceof ApiError && err.status === 400 ? 'error.invalid_input' : SEARCH_FAILED);
    return null;
  } finally {
    if (forGeneration === generation) {
      inflight.delete(pageNumber);
      $searchLoading.set(inflight.size > 0);
    }
  }
}

/** Shows a result page: from the cache when it was seen before, else from GET /api/search.php. Null on failure. */
export async function loadPage(pageNumber: number): Promise<ProfileCard[] | null> {
  lastSearch = () => loadPage(pageNumber);
  wantedPage = pageNumber;
  $searchError.set(null);
  const cached = $search.get().pages[pageNumber];
  if (cached) {
    showPage(pageNumber);
    return cached;
  }
  const forGeneration = generation;
  let request = inflight.get(pageNumber);
  if (!request) {
    request = fetchPage(pageNumber, forGeneration);
    inflight.set(pageNumber, request);
    $searchLoading.set(true);
  }
  const results = await request;
  // Only the last page asked for goes on screen; a slower earlier answer is just cached.
  if (results && forGeneration === generation && wantedPage === pageNumber) showPage(pageNumber);
  return results;
}

/**
 * Applies filters from the form: checks them, drops the cached pages when they changed, and shows page 1.
 * When the request fails (network, server), the results shown before stay on screen with their filters.
 */
export async function setFilters(input: SearchFilterInput): Promise<ProfileCard[] | null> {
  const filters = parseSearchFilters(input);
  if ('error' in filters) {
    $searchError.set(filters.error);
    return null;
  }
  if (sameFilters(filtersOf($search.get()), filters)) return loadPage(1);
  const before = { state: $search.get(), pageNumber: $searchPageNumber.get() };
  startOver(filters);
  syncUrl();
  const results = await loadPage(1);
  lastSearch = () => setFilters(input);
  if (!results && $searchError.get() === SEARCH_FAILED && before.state.didInit) {
    generation++;
    $search.set(before.state);
    wantedPage = before.pageNumber;
    showPage(before.pageNumber);
  }
  return results;
}

/** Runs the last search again (the retry offered after a failed one). */
export function retrySearch(): Promise<ProfileCard[] | null> {
  return lastSearch ? lastSearch() : loadPage($searchPageNumber.get());
}

/** A profile the search has seen, on any page or under earlier filters. */
export function findCachedProfile(id: number): ProfileCard | null {
  const state = $search.get();
  const all = [...Object.values(state.pages).flat(), ...state.similar];
  return all.find((p) => p.id === id) ?? state.otherCachedProfiles[id] ?? null;
}

/** How filling the search from the position went. */
export type NearMeOutcome = 'filled' | 'skipped' | 'failed' | 'elsewhere';

/**
 * Fills country and region from the browser position and searches there. With `ask` (the member
 * clicked "Near me") the browser may prompt; without it this runs only when the permission is already
 * granted and the member has chosen neither a country nor a region, so it never prompts on its own.
 */
export async function searchNearMe({ ask, countries }: { ask: boolean; countries: readonly string[] }): Promise<NearMeOutcome> {
  const untouched = () => !$search.get().country && !$search.get().countryregion;
  if (!ask && (!untouched() || (await readGeoPermission()) !== 'granted')) return 'skipped';
  const place = await locate().catch(() => null);
  if (!place?.country) return 'failed';
  if (!countries.includes(place.country)) return 'elsewhere';
  if (!ask && !untouched()) return 'skipped';
  await setFilters({ ...filtersOf($search.get()), country: place.country, countryregion: place.region ?? '' });
  return 'filled';
}

/** Likes a profile from the results (source "search"); its button then shows it as liked. */
export async function likeFromSearch(profileId: number) {
  const result = await likeProfile(profileId, 'search');
  $searchLikes.set(new Set($searchLikes.get()).add(profileId));
  return result;
}

/** Forgets the whole search (tests, and a new member on the same page). */
export function resetSearch(): void {
  generation++;
  inflight.clear();
  network = undefined;
  wantedPage = 1;
  lastSearch = null;
  $search.set(EMPTY);
  $searchPageNumber.set(1);
  $searchLoading.set(false);
  $searchError.set(null);
  $searchLikes.set(new Set());
}
