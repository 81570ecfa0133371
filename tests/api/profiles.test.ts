import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_LIKES_PER_DAY } from '../../src/shared/constants';
import { JSON_HEADERS, activeMember, as, post } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';


const member = activeMember;

for (const dialect of DIALECTS) {
  describe(`profiles, search, blocks and likes (${dialect})`, () => {
    let t: TestApp;
    let ann: Awaited<ReturnType<typeof member>>;
    let bob: Awaited<ReturnType<typeof member>>;
    let cat: Awaited<ReturnType<typeof member>>;
    beforeAll(async () => {
      t = await createTestApp(dialect);
      ann = await member(t, 'Ann', { birth: '1990-05-01', region: 'utrecht' });
      bob = await member(t, 'Bob', { birth: '1970-01-01', gender: 'male', region: 'drenthe' });
      cat = await member(t, 'Cat', { birth: '2000-02-02', paid: true, region: 'utrecht' });
    });
    afterAll(async () => t.close());

    const search = async (cookie: string, query: string) => {
      const res = await t.request(`/api/search.php?${query}`, as(cookie));
      expect(res.status).toBe(200);
      return (await res.json()) as { numResults: number; results: { id: number }[]; similar: { id: number }[] };
    };

    it('filters by gender, country, region and age, and never lists the viewer', async () => {
      const ids = (r: { results: { id: number }[] }) => r.results.map((p) => p.id);
      expect(ids(await search(ann.cookie, 'gender=male'))).toEqual([bob.profileId]);
      expect(ids(await search(ann.cookie, 'country=NL&countryregion=utrecht'))).toEqual([cat.profileId]);
      expect(ids(await search(ann.cookie, 'min_age=50&max_age=60'))).toEqual([bob.profileId]);
      expect(ids(await search(ann.cookie, 'min_age=18&max_age=30'))).toEqual([cat.profileId]);
      expect(ids(await search(ann.cookie, 'country=NL'))).not.toContain(ann.profileId);
    });

    it('suggests similar profiles when results are few', async () => {
      const r = await search(ann.cookie, 'country=NL&countryregion=drenthe&min_age=30&max_age=40');
      expect(r.numResults).toBe(0);
      expect(r.similar.map((p) => p.id)).toEqual(expect.arrayContaining([cat.profileId]));
    });

    it('marks the shown profiles the viewer liked, and only the viewer\'s likes', async () => {
      const liker = await member(t, 'Liker', { birth: '1985-03-03', paid: true });
      const other = await member(t, 'Other', { birth: '1986-03-03', paid: true });
      expect((await t.request('/api/like.php', post(liker.cookie, { profile_id: cat.profileId }))).status).toBe(200);
      expect((await t.request('/api/like.php', post(other.cookie, { profile_id: ann.profileId }))).status).toBe(200);
      const likedIds = async (cookie: string) => {
        const res = await t.request('/api/search.php?country=NL', as(cookie));
        const body = (await res.json()) as { results: { id: number }[]; likedIds: number[] };
        expect(body.results.map((r) => r.id)).toEqual(expect.arrayContaining([ann.profileId, cat.profileId]));
        return body.likedIds;
      };
      expect(await likedIds(liker.cookie)).toEqual([cat.profileId]);
      expect(await likedIds(other.cookie)).toEqual([ann.profileId]);
      expect(await likedIds(bob.cookie)).toEqual([]);
      // Among similar profiles too (shown below too few results, so not from the shared page).
      const few = (await (await t.request('/api/search.php?country=NL&countryregion=drenthe&min_age=30&max_age=40', as(liker.cookie))).json()) as {
        results: { id: number }[]; similar: { id: number }[]; likedIds: number[];
      };
      expect(few.results).toEqual([]);
      expect(few.similar.map((p) => p.id)).toContain(cat.profileId);
      expect(few.likedIds).toEqual([cat.profileId]);
    });

    it('rejects bad filters with 400', async () => {
      for (const q of ['min_age=17', 'max_age=100', 'min_age=40&max_age=30', 'gender=other', 'country=nl', 'page=0', 'min_age=abc', 'countryregion=%3Cx%3E']) {
        const res = await t.request(`/api/search.php?${q}`, as(ann.cookie));
        expect(res.status, q).toBe(400);
      }
      await fc.assert(fc.asyncProperty(fc.string({ maxLength: 30 }), async (value) => {
        const res = await t.request(`/api/search.php?min_age=${encodeURIComponent(value)}`, as(ann.cookie));
        const ok = /^\d{1,3}$/.test(value) && Number(value) >= 18 && Number(value) <= 99;
        expect(res.status).toBe(ok ? 200 : 400);
      }), { numRuns: 30 });
    });

    it('lets visitors search only where the site allows it', async () => {
      expect((await t.request('/api/search.php')).status).toBe(200);
      expect((await t.request('/api/search.php', { host: 'gay.localhost' })).status).toBe(403);
      expect((await t.request('/api/search.php', { host: 'rijpe.localhost' })).status).toBe(403);
      expect((await t.request('/api/search.php?network=adnet', { host: 'rijpe.localhost' })).status).toBe(200);
    });

    it('hides invisible members from search and from being liked first', async () => {
      await t.request('/api/account-settings.php', as(bob.cookie, { method: 'PUT', body: JSON.stringify({ invisible: true }) }));
      expect((await search(ann.cookie, 'gender=male')).results).toEqual([]);
      const like = await t.request('/api/like.php', post(ann.cookie, { profile_id: bob.profileId }));
      expect(like.status).toBe(403);
      expect((await like.json()).error).toBe('invisible');
      expect((await t.request(`/api/member.php?id=${bob.profileId}`, as(ann.cookie))).status).toBe(404);
      await t.request('/api/account-settings.php', as(bob.cookie, { method: 'PUT', body: JSON.stringify({ invisible: false }) }));
    });

    it('blocks hide members both ways and shut the blocked one out', async () => {
      expect((await t.request('/api/block.php', post(cat.cookie, { profile_id: ann.profileId }))).status).toBe(200);
      expect((await search(ann.cookie, 'country=NL')).results.map((p) => p.id)).not.toContain(cat.profileId);
      expect((await search(cat.cookie, 'country=NL')).results.map((p) => p.id)).not.toContain(ann.profileId);
      const view = await t.request(`/api/member.php?id=${cat.profileId}`, as(ann.cookie));
      expect(view.status).toBe(403);
      expect((await view.json()).message).toBe("You're blocked by Cat. You do not have access to this page.");
      const like = await t.request('/api/like.php', post(ann.cookie, { profile_id: cat.profileId }));
      expect(like.status).toBe(403);
      expect((await t.request('/api/block.php', as(cat.cookie, { method: 'DELETE', body: JSON.stringify({ profile_id: ann.profileId }) }))).status).toBe(200);
      expect((await t.request(`/api/member.php?id=${cat.profileId}`, as(ann.cookie))).status).toBe(200);
    });

    it('answers 404 for unknown, deleted and other-site profiles', async () => {
      expect((await t.request('/api/member.php?id=999999', as(ann.cookie))).status).toBe(404);
      expect((await t.request('/api/member.php?id=abc', as(ann.cookie))).status).toBe(400);
      expect((await t.request(`/api/member.php?id=${ann.profileId}`, { host: 'gay.localhost' })).status).toBe(404);
    });

    it('shows the profile notes the site lists, written by their member, cleaned and limited', async () => {
      const patch = (cookie: string, body: unknown, host?: string) => t.request('/api/profile.php', { ...post(cookie, body, 'PATCH'), host });
      expect((await patch(ann.cookie, { about: '  Hiking,\u0007 books\r\n\n\n\nand \u202Ecoffee. ' })).status).toBe(200);
      const seen = (await (await t.request(`/api/member.php?id=${ann.profileId}`, as(bob.cookie))).json()).profile;
      expect(seen.notes).toEqual([{ key: 'about', text: 'Hiking, books\n\nand coffee.' }]);
      // Too long, wrong type, and a note the site does not show: refused with a message, nothing changed.
      const long = await patch(ann.cookie, { about: 'x'.repeat(1001) });
      expect(long.status).toBe(400);
      expect((await long.json()).fields.about).toBe('This text is too long.');
      expect((await patch(ann.cookie, { about: 42 })).status).toBe(400);
      const before = await t.app.db.db.selectFrom('profiles').select('about').where('id', '=', ann.profileId).executeTakeFirstOrThrow();
      expect(before.about).toBe('Hiking, books\n\nand coffee.');
      // Logged out: nothing to change.
      expect((await t.request('/api/profile.php', { method: 'PATCH', headers: JSON_HEADERS, body: JSON.stringify({ about: 'x' }) })).status).toBe(403);
      // Emptied: the note disappears from the profile.
      expect((await patch(ann.cookie, { about: '   ' })).status).toBe(200);
      expect((await (await t.request(`/api/member.php?id=${ann.profileId}`, as(bob.cookie))).json()).profile.notes).toEqual([]);
    });

    it('limits photos for visitors and free members; premium members see all', async () => {
      const db = t.app.db.db;
      await db.insertInto('photos').values([1, 2, 3].map((i) => ({
        profile_id: bob.profileId, filename: `p${i}.webp`, thumb_filename: `p${i}t.webp`, status: 'active' as const, is_main: i === 1 ? 1 : 0, created_at: i,
      }))).execute();
      const free = (await (await t.request(`/api/member.php?id=${bob.profileId}`, as(ann.cookie))).json()).profile;
      expect(free.photos).toHaveLength(1);
      expect(free.hiddenPhotos).toBe(2);
      const visitor = (await (await t.request(`/api/member.php?id=${bob.profileId}`)).json()).profile;
      expect(visitor.photos).toHaveLength(1);
      const premium = (await (await t.request(`/api/member.php?id=${bob.profileId}`, as(cat.cookie))).json()).profile;
      expect(premium.photos).toHaveLength(3);
    });

    it('records a report in the moderation queue', async () => {
      const res = await t.request('/api/report.php', post(ann.cookie, { profile_id: bob.profileId, reason: 'spam', details: 'ads' }));
      expect(res.status).toBe(201);
      const rows = await t.app.db.db.selectFrom('reports').selectAll().where('profile_id', '=', bob.profileId).execute();
      expect(rows).toHaveLength(1);
      expect(rows[0].status).toBe('open');
      expect((await t.request('/api/report.php', post(ann.cookie, { profile_id: bob.profileId, reason: 'nope' }))).status).toBe(400);
      expect((await t.request('/api/report.php', post(ann.cookie, { profile_id: ann.profileId, reason: 'spam' }))).status).toBe(400);
      expect((await t.request('/api/report.php', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ profile_id: bob.profileId, reason: 'spam' }) })).status).toBe(403);
    });

    it('gives free members 4 likes a day, premium members unlimited, and makes a match of a like back', async () => {
      const db = t.app.db.db;
      const now = t.app.clock.now();
      const others = await db.insertInto('profiles').values(Array.from({ length: 6 }, (_, i) => ({
        site_id: 'kindred', user_id: null, name: `Extra${i}`, gender: 'male' as const, sexuality: 'hetero' as const, birth_date: '1980-01-01',
        country: 'NL', region: null, city: null, hair_color: null, eye_color: null, body_type: null, relationship_status: null, tattoos: null,
        about: null, fictional: 1, invisible: 0, status: 'active' as const, last_active_at: now, created_at: now,
      }))).returning('id').execute();
      for (let i = 0; i < FREE_LIKES_PER_DAY; i++) {
        const res = await t.request('/api/like.php', post(bob.cookie, { profile_id: others[i].id, source: 'search' }));
        expect(res.status).toBe(200);
      }
      const over = await t.request('/api/like.php', post(bob.cookie, { profile_id: others[4].id }));
      expect(over.status).toBe(429);
      expect((await over.json()).error).toBe('like_limit');
      expect(await db.selectFrom('likes').select('liked_profile_id').where('liker_profile_id', '=', bob.profileId).execute()).toHaveLength(4);
      t.clock.advance(24 * 3600 * 1000);
      expect((await t.request('/api/like.php', post(bob.cookie, { profile_id: others[4].id }))).status).toBe(200);
      for (const o of others) expect((await t.request('/api/like.php', post(cat.cookie, { profile_id: o.id }))).status).toBe(200);
      expect((await (await t.request('/api/like.php', post(cat.cookie, { profile_id: bob.profileId }))).json()).match).toBe(false);
      expect((await (await t.request('/api/like.php', post(bob.cookie, { profile_id: cat.profileId }))).json()).match).toBe(true);
    });

    it('a profile view shows the viewer\'s own block and like of that member, refuses whom they blocked, and clears only that member\'s new like', async () => {
      const dee = await member(t, 'Dee', { paid: true });
      const eli = await member(t, 'Eli', { gender: 'male', paid: true });
      const fay = await member(t, 'Fay', { paid: true });
      const view = async (cookie: string, id: number) => {
        const res = await t.request(`/api/member.php?id=${id}`, as(cookie));
        return { status: res.status, profile: (await res.json()).profile as { liked: boolean; blockedByMe: boolean } | undefined };
      };
      const newLikes = async () => (await (await t.request('/api/user.php', as(dee.cookie))).json()).user.new_likes as number;
      const isNew = async (liker: number) => (await t.app.db.db.selectFrom('likes').select('is_new').where('liker_profile_id', '=', liker).where('liked_profile_id', '=', dee.profileId).executeTakeFirstOrThrow()).is_new;
      for (const m of [eli, fay]) expect((await t.request('/api/like.php', post(m.cookie, { profile_id: dee.profileId }))).status).toBe(200);
      expect(await newLikes()).toBe(2);
      expect(await view(dee.cookie, eli.profileId)).toMatchObject({ status: 200, profile: { liked: false, blockedByMe: false } });
      expect([await isNew(eli.profileId), await isNew(fay.profileId)]).toEqual([0, 1]);
      expect(await newLikes()).toBe(1);
      expect((await t.request('/api/like.php', post(dee.cookie, { profile_id: eli.profileId }))).status).toBe(200);
      expect((await t.request('/api/block.php', post(dee.cookie, { profile_id: fay.profileId }))).status).toBe(200);
      expect(await view(dee.cookie, eli.profileId)).toMatchObject({ status: 200, profile: { liked: true, blockedByMe: false } });
      expect(await view(dee.cookie, fay.profileId)).toMatchObject({ status: 200, profile: { liked: false, blockedByMe: true } });
      expect((await view(fay.cookie, dee.profileId)).status).toBe(403);
    });

    it('refuses bad like bodies and logged-out likes, changing nothing', async () => {
      const before = await t.app.db.db.selectFrom('likes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      await fc.assert(fc.asyncProperty(fc.anything(), async (body) => {
        const res = await t.request('/api/like.php', post(ann.cookie, body));
        expect(res.status).toBeGreaterThanOrEqual(400);
      }), { numRuns: 30 });
      expect((await t.request('/api/like.php', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ profile_id: bob.profileId }) })).status).toBe(403);
      const after = await t.app.db.db.selectFrom('likes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
    });
  });
}
