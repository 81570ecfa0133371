import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_LIKES_PER_DAY, SWIPES_PER_DAY_FREE } from '../../src/shared/constants';
import { JSON_HEADERS, signupMember } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';


for (const dialect of DIALECTS) {
  describe(`swipe game (${dialect})`, () => {
    let t: TestApp;
    let cookie: string;
    let targets: number[];
    let everyone: number[];
    beforeAll(async () => {
      t = await createTestApp(dialect);
      ({ cookie } = await signupMember(t, 'Swiper', { gender: 'male' }));
      const now = t.clock.now();
      const rows = await t.app.db.db.insertInto('profiles').values(Array.from({ length: SWIPES_PER_DAY_FREE + 5 }, (_, i) => ({
        site_id: 'kindred', user_id: null, name: `Card${i}`, gender: (i % 5 === 0 ? 'male' : 'female') as 'male' | 'female', sexuality: 'hetero' as const,
        birth_date: '1985-01-01', country: 'NL', region: null, city: null, hair_color: null, eye_color: null, body_type: null,
        relationship_status: null, tattoos: null, about: null, fictional: 1, invisible: 0, status: 'active' as const, last_active_at: now - i, created_at: now,
      }))).returning(['id', 'gender']).execute();
      targets = rows.filter((r) => r.gender === 'female').map((r) => r.id);
      everyone = [...targets, ...rows.filter((r) => r.gender === 'male').map((r) => r.id)];
    });
    afterAll(async () => t.close());

    const deck = async () => (await (await t.request('/api/swipe.php', { headers: { ...JSON_HEADERS, cookie } })).json()) as { cards: { id: number }[]; remaining: number };
    const swipe = (profile_id: number, decision: string) =>
      t.request('/api/swipe.php', { method: 'POST', headers: { ...JSON_HEADERS, cookie }, body: JSON.stringify({ profile_id, decision }) });

    it('deals only profiles of the gender the member looks for', async () => {
      const { cards, remaining } = await deck();
      expect(remaining).toBe(SWIPES_PER_DAY_FREE);
      expect(cards.length).toBeGreaterThan(0);
      for (const card of cards) expect(targets).toContain(card.id);
    });

    it('likes on right (within the daily like limit), passes on left, never the same card twice a day', async () => {
      for (let i = 0; i < FREE_LIKES_PER_DAY; i++) expect((await swipe(targets[i], 'like')).status).toBe(200);
      const overLimit = await swipe(targets[FREE_LIKES_PER_DAY], 'like');
      expect(overLimit.status).toBe(429);
      expect((await overLimit.json()).error).toBe('like_limit');
      expect((await swipe(targets[FREE_LIKES_PER_DAY], 'pass')).status).toBe(200);
      const again = await swipe(targets[0], 'pass');
      expect(again.status).toBe(409);
      const seen = new Set(targets.slice(0, FREE_LIKES_PER_DAY + 1));
      for (const card of (await deck()).cards) expect(seen.has(card.id)).toBe(false);
    });

    it('stops at the daily allowance with a clear message, and deals again the next day', async () => {
      let used = FREE_LIKES_PER_DAY + 1;
      for (const id of everyone.slice(used)) {
        if (used >= SWIPES_PER_DAY_FREE) break;
        expect((await swipe(id, 'pass')).status).toBe(200);
        used++;
      }
      const { cards, remaining } = await deck();
      expect(remaining).toBe(0);
      expect(cards).toEqual([]);
      const refused = await swipe(everyone[everyone.length - 1], 'pass');
      expect([409, 429]).toContain(refused.status);
      t.clock.advance(24 * 3600 * 1000);
      expect((await deck()).remaining).toBe(SWIPES_PER_DAY_FREE);
    });

    it('refuses bad input and visitors', async () => {
      expect((await swipe(targets[0], 'maybe')).status).toBe(400);
      expect((await swipe(-1, 'like')).status).toBe(400);
      expect((await swipe(999999, 'pass')).status).toBe(404);
      expect((await t.request('/api/swipe.php', { headers: JSON_HEADERS })).status).toBe(403);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`match finder (${dialect})`, () => {
    let t: TestApp;
    let cookie: string;
    beforeAll(async () => {
      t = await createTestApp(dialect);
      ({ cookie } = await signupMember(t, 'Finder', { gender: 'male', birth: '1980-05-01' }));
      const now = t.clock.now();
      const db = t.app.db.db;
      const rows = await db.insertInto('profiles').values(['Wine', 'Hike', 'Both', 'None'].map((name) => ({
        site_id: 'kindred', user_id: null, name, gender: 'female' as const, sexuality: 'hetero' as const, birth_date: '1986-01-01',
        country: 'NL', region: 'utrecht', city: null, hair_color: null, eye_color: null, body_type: null, relationship_status: null,
        tattoos: null, about: null, fictional: 1, invisible: 0, status: 'active' as const, last_active_at: now, created_at: now,
      }))).returning(['id', 'name']).execute();
      const id = (name: string) => rows.find((r) => r.name === name)!.id;
      await db.insertInto('profile_interests').values([
        { profile_id: id('Wine'), interest: 'wine' }, { profile_id: id('Hike'), interest: 'hiking' },
        { profile_id: id('Both'), interest: 'wine' }, { profile_id: id('Both'), interest: 'hiking' },
      ]).execute();
    });
    afterAll(async () => t.close());

    const find = (query: string) => t.request(`/api/match-finder.php?${query}`, { headers: { ...JSON_HEADERS, cookie } });

    it('ranks fitting profiles by shared interests', async () => {
      const res = await find('gender=female&min_age=35&max_age=45&country=NL&countryregion=utrecht&interests=wine,hiking');
      expect(res.status).toBe(200);
      const { results } = await res.json();
      const shared = results.map((r: { shared: number }) => r.shared);
      expect(shared).toEqual([...shared].sort((a, b) => b - a));
      expect(results[0]).toMatchObject({ name: 'Both', shared: 2 });
      expect(results.slice(1, 3).map((r: { name: string }) => r.name).sort()).toEqual(['Hike', 'Wine']);
      expect(results.find((r: { name: string }) => r.name === 'None').shared).toBe(0);
    });

    it('widens to the whole country when the region has too few', async () => {
      const { results } = await (await find('gender=female&country=NL&countryregion=drenthe')).json();
      expect(results.length).toBeGreaterThanOrEqual(4);
    });

    it('refuses unknown or too many interests, bad filters and visitors', async () => {
      expect((await find('interests=stamps')).status).toBe(400);
      expect((await find('interests=wine,beer,tea,sushi,music,art')).status).toBe(400);
      expect((await find('min_age=10')).status).toBe(400);
      expect((await t.request('/api/match-finder.php', { headers: JSON_HEADERS })).status).toBe(403);
    });
  });
}
