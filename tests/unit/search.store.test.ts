import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  $currentSearchPage, $search, $searchError, $searchLikes, $searchLoading, findCachedProfile, initSearch, likeFromSearch, loadPage,
  resetSearch, retrySearch, SEARCH_FAILED, searchNearMe, setFilters,
} from '../../src/core/profiles/search.store';
import type { ProfileCard, SearchResult } from '../../src/shared/profiles.contract';
import { fakeAddressBar, fakeApi, fakeGeolocation } from '../helpers/fake-api';

const card = (id: number): ProfileCard => ({ id, name: `Member ${id}`, age: 30, city: null, region: null, country: 'NL', fictional: id % 2 === 0, thumb: null });
const page = (pageNumber: number, ids: number[], numResults = 60, similar: number[] = []): SearchResult => ({
  pageNumber, results: ids.map(card), numResults, similar: similar.map(card), similarCount: similar.length, likedIds: [],
});
const ids = (cards: ProfileCard[] | null | undefined) => (cards ?? []).map((c) => c.id);

let api: ReturnType<typeof fakeApi>;
let bar: ReturnType<typeof fakeAddressBar>;

beforeEach(() => {
  resetSearch();
  api = fakeApi();
  bar = fakeAddressBar('/members?gender=female');
  initSearch({ filters: { gender: 'female' }, result: page(1, [1, 2, 3]) });
});
afterEach(() => {
  expect(api.unexpected).toEqual([]);
  expect(api.pending()).toEqual([]);
  vi.unstubAllGlobals();
});

describe('search store', () => {
  it('starts from the server-rendered page without a request', () => {
    expect($search.get()).toMatchObject({ didInit: true, gender: 'female', numResults: 60, similar: [], similarCount: 0 });
    expect(ids($currentSearchPage.get().results)).toEqual([1, 2, 3]);
    expect($currentSearchPage.get()).toMatchObject({ pageNumber: 1, pageCount: 3 });
    expect(api.requests).toEqual([]);
    expect(bar.history.replaceState).not.toHaveBeenCalled();
  });

  it('marks profiles the member already liked, from every loaded page', async () => {
    expect($searchLikes.get().size).toBe(0);
    api.expectRequest('/api/search.php?gender=female&page=2').andRespond(200, { ...page(2, [4, 5, 6]), likedIds: [5] });
    await loadPage(2);
    expect([...$searchLikes.get()]).toEqual([5]);
  });

  it('loads a page once, then answers it and the seeded page from the cache', async () => {
    api.expectRequest('/api/search.php?gender=female&page=2').andRespond(200, page(2, [4, 5, 6]));
    expect(ids(await loadPage(2))).toEqual([4, 5, 6]);
    expect($currentSearchPage.get().pageNumber).toBe(2);
    expect(bar.location.search).toBe('?gender=female&page=2');

    expect(ids(await loadPage(1))).toEqual([1, 2, 3]);
    expect(bar.location.search).toBe('?gender=female');
    expect(ids(await loadPage(2))).toEqual([4, 5, 6]);
    expect(api.requests).toEqual(['GET /api/search.php?gender=female&page=2']);
    expect($searchLoading.get()).toBe(false);
  });

  it('asks only once for a page requested twice while loading', async () => {
    const slow = api.expectRequest('/api/search.php?gender=female&page=3').andWait();
    const first = loadPage(3);
    const second = loadPage(3);
    expect($searchLoading.get()).toBe(true);
    slow.respond(200, page(3, [7]));
    expect(ids(await first)).toEqual([7]);
    expect(ids(await second)).toEqual([7]);
    expect(api.requests).toHaveLength(1);
  });

  it('drops the cached pages when the filters change and keeps their profiles as other cached profiles', async () => {
    api.expectRequest('/api/search.php?gender=female&page=2').andRespond(200, page(2, [4, 5, 6]));
    await loadPage(2);
    api.expectRequest('/api/search.php?gender=female&country=NL&countryregion=utrecht&min_age=30')
      .andRespond(200, page(1, [9], 1, [10, 11]));
    const results = await setFilters({ gender: 'female', country: 'NL', countryregion: 'utrecht', min_age: '30', max_age: '' });
    expect(ids(results)).toEqual([9]);
    const state = $search.get();
    expect(state).toMatchObject({ gender: 'female', country: 'NL', countryregion: 'utrecht', min_age: 30, numResults: 1, similarCount: 2 });
    expect(state.max_age).toBeUndefined();
    expect(Object.keys(state.pages)).toEqual(['1']);
    expect(Object.keys(state.otherCachedProfiles).map(Number).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(findCachedProfile(5)?.name).toBe('Member 5');
    expect(findCachedProfile(10)?.name).toBe('Member 10');
    expect($currentSearchPage.get()).toMatchObject({ pageNumber: 1, pageCount: 1 });
    expect(bar.location.search).toBe('?gender=female&country=NL&countryregion=utrecht&min_age=30');
  });

  it('keeps the cache when the same filters are applied again', async () => {
    expect(ids(await setFilters({ gender: 'female', country: '' }))).toEqual([1, 2, 3]);
    expect(api.requests).toEqual([]);
  });

  it('refuses filters the endpoint would refuse, without a request', async () => {
    expect(await setFilters({ min_age: '50', max_age: '30' })).toBeNull();
    expect($searchError.get()).toBe('search.age_order');
    expect(await setFilters({ min_age: '12' })).toBeNull();
    expect($searchError.get()).toBe('error.invalid_input');
    expect($search.get().gender).toBe('female');
    expect(api.requests).toEqual([]);
  });

  it('ignores an answer for filters that were replaced meanwhile', async () => {
    const slow = api.expectRequest('/api/search.php?gender=male').andWait();
    const stale = setFilters({ gender: 'male' });
    api.expectRequest('/api/search.php?country=NL').andRespond(200, page(1, [20, 21], 2));
    await setFilters({ country: 'NL' });
    slow.respond(200, page(1, [30], 1));
    expect(await stale).toBeNull();
    expect(ids($currentSearchPage.get().results)).toEqual([20, 21]);
    expect($search.get()).toMatchObject({ country: 'NL', numResults: 2 });
    expect($search.get().gender).toBeUndefined();
    expect(bar.location.search).toBe('?country=NL');
  });

  it('reports a failed request and stays on the page shown', async () => {
    api.expectRequest('/api/search.php?gender=female&page=2').andRespond(400, { error: 'invalid_input', message: 'Invalid input.' });
    expect(await loadPage(2)).toBeNull();
    expect($searchError.get()).toBe('error.invalid_input');
    expect($currentSearchPage.get().pageNumber).toBe(1);
    expect($searchLoading.get()).toBe(false);
  });

  it('keeps the results on screen when a new search fails, and runs it again on retry', async () => {
    // 501 is a server failure the client does not retry, so it fails at once.
    api.expectRequest('/api/search.php?gender=male').andRespond(501, { error: 'error', message: 'Server trouble.' });
    expect(await setFilters({ gender: 'male' })).toBeNull();
    expect($searchError.get()).toBe(SEARCH_FAILED);
    expect(ids($currentSearchPage.get().results)).toEqual([1, 2, 3]);
    expect($search.get()).toMatchObject({ gender: 'female', numResults: 60 });
    expect(bar.location.search).toBe('?gender=female');

    api.expectRequest('/api/search.php?gender=male').andRespond(200, page(1, [7, 8], 2));
    expect(ids(await retrySearch())).toEqual([7, 8]);
    expect($searchError.get()).toBeNull();
    expect($search.get()).toMatchObject({ gender: 'male', numResults: 2 });
    expect(bar.location.search).toBe('?gender=male');
  });

  it('passes the tracking network along to the API and the URL', async () => {
    resetSearch();
    initSearch({ filters: {}, result: page(1, [1]), network: 'adnet' });
    api.expectRequest('/api/search.php?page=2&network=adnet').andRespond(200, page(2, [2]));
    await loadPage(2);
    expect(bar.location.search).toBe('?page=2&network=adnet');
  });

  it('likes from the results with the search source and remembers the like', async () => {
    api.expectRequest('/api/like.php', 'POST').andRespond(200, { match: false, remaining: 3 });
    expect(await likeFromSearch(2)).toEqual({ match: false, remaining: 3 });
    expect($searchLikes.get().has(2)).toBe(true);
  });
});

describe('search near me', () => {
  const countries = ['NL', 'BE', 'DE'];
  const UTRECHT = { latitude: 52.09, longitude: 5.12 };
  const geocode = '/api/geocode.php?lat=52.0900&lon=5.1200';

  it('never locates on its own while the permission is not granted', async () => {
    const geo = fakeGeolocation('prompt', UTRECHT);
    expect(await searchNearMe({ ask: false, countries })).toBe('skipped');
    expect(geo.getCurrentPosition).not.toHaveBeenCalled();
  });

  it('fills country and region on its own when allowed and the member chose neither', async () => {
    fakeGeolocation('granted', UTRECHT);
    api.expectRequest(geocode).andRespond(200, { country: 'NL', region: 'utrecht', city: 'Utrecht' });
    api.expectRequest('/api/search.php?gender=female&country=NL&countryregion=utrecht').andRespond(200, page(1, [40], 1));
    expect(await searchNearMe({ ask: false, countries })).toBe('filled');
    expect($search.get()).toMatchObject({ gender: 'female', country: 'NL', countryregion: 'utrecht' });
    expect(bar.location.search).toBe('?gender=female&country=NL&countryregion=utrecht');
  });

  it('leaves a country the member chose alone unless they ask', async () => {
    resetSearch();
    initSearch({ filters: { country: 'BE' }, result: page(1, [1]) });
    const geo = fakeGeolocation('granted', UTRECHT);
    expect(await searchNearMe({ ask: false, countries })).toBe('skipped');
    expect(geo.getCurrentPosition).not.toHaveBeenCalled();

    api.expectRequest(geocode).andRespond(200, { country: 'NL', region: 'utrecht', city: 'Utrecht' });
    api.expectRequest('/api/search.php?country=NL&countryregion=utrecht').andRespond(200, page(1, [40], 1));
    expect(await searchNearMe({ ask: true, countries })).toBe('filled');
    expect($search.get().country).toBe('NL');
  });

  it('says so when the position is unknown or outside the site countries', async () => {
    fakeGeolocation('denied', null);
    expect(await searchNearMe({ ask: true, countries })).toBe('failed');
    fakeGeolocation('granted', UTRECHT);
    api.expectRequest(geocode).andRespond(200, { country: 'NL', region: 'utrecht', city: 'Utrecht' });
    expect(await searchNearMe({ ask: true, countries: ['DE'] })).toBe('elsewhere');
    expect($search.get().country).toBeUndefined();
  });
});
