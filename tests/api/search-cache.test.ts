import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/server/db/database';
import { seedDemoData } from '../../src/server/db/seed';
import { SEARCH_COUNT_TTL_MS } from '../../src/server/profiles/profiles.service';
import { SEARCH_COUNT_CAP } from '../../src/shared/profiles.contract';
import { activeMember, as, post } from '../helpers/members';
import { createTestApp, DIALECTS, openSecondHandle, type TestApp } from '../helpers/test-app';

// Search counts and pages are shared for a moment per site × filters (profiles.service.ts). Who may
// be listed must still hold exactly: invisible, blocked and other-site profiles never show, and a
// member's count leaves out exactly who they may not see. The shared count itself is a hint up to
// SEARCH_COUNT_TTL_MS old (on the app clock), even after a profile write in this process.
type Result = { numResults: number; results: { id: number }[] };

for (const dialect of DIALECTS) {
  describe(`search counts and shared pages (${dialect})`, () => {
    let t: TestApp;
    /** Another handle on the same database: writes through it are what another process would do. */
    let other: Db;
    beforeAll(async () => {
      t = await createTestApp(dialect);
      const { db: handle } = t.app;
      other = openSecondHandle(handle);
    });
    afterAll(async () => {
      await other.db.destroy();
      await t.close();
    });

    const search = async (query: string, cookie?: string, host?: string): Promise<Result> => {
      const res = await t.request(`/api/search.php?${query}`, { ...(cookie ? as(cookie) : {}), host });
      expect(res.status).toBe(200);
      return res.json();
    };

    it('never lists a profile that turned invisible, even when the change came from another process', async () => {
      const kim = await activeMember(t, 'Kimberly', { gender: 'male', region: 'zeeland' });
      const first = await search('gender=male&country=NL&countryregion=zeeland');
      expect(first.results.map((r) => r.id)).toContain(kim.profileId);
      // Not through this app's handle: its write watch does not see it, the listing check must.
      await other.db.updateTable('profiles').set({ invisible: 1 }).where('id', '=', kim.profileId).execute();
      const again = await search('gender=male&country=NL&countryregion=zeeland');
      expect(again.results.map((r) => r.id)).not.toContain(kim.profileId);
      await other.db.updateTable('profiles').set({ invisible: 0 }).where('id', '=', kim.profileId).execute();
    });

    it('a profile write drops the shared page at once but the shared count only after 15 s', async () => {
      const query = 'gender=male&country=NL&countryregion=noord-brabant';
      const sem = await activeMember(t, 'Sempronius', { gender: 'male', region: 'noord-brabant' });
      const tom = await activeMember(t, 'Tomasso', { gender: 'male', region: 'noord-brabant' });
      const viewer = await activeMember(t, 'Ursulina', { gender: 'female', region: 'noord-brabant' });
      const first = await search(query);
      expect(first.results.map((r) => r.id)).toEqual(expect.arrayContaining([sem.profileId, tom.profileId]));
      expect((await search(query, viewer.cookie)).numResults).toBe(first.numResults);
      // Through this process's handle: its write watch sees it, as after a member's own settings change.
      await t.app.db.db.updateTable('profiles').set({ invisible: 1 }).where('id', '=', sem.profileId).execute();
      const visitor = await search(query);
      const member = await search(query, viewer.cookie);
      // Never listed again, for visitors and members; the count is the shared hint of before.
      expect(visitor.results.map((r) => r.id)).not.toContain(sem.profileId);
      expect(member.results.map((r) => r.id)).not.toContain(sem.profileId);
      expect(visitor.results.map((r) => r.id)).toContain(tom.profileId);
      expect(visitor.numResults).toBe(first.numResults);
      // A block still counts at once: the member's count leaves out exactly who they may not see.
      expect((await t.request('/api/block.php', post(tom.cookie, { profile_id: viewer.profileId }))).status).toBe(200);
      const blocked = await search(query, viewer.cookie);
      expect(blocked.results.map((r) => r.id)).not.toContain(tom.profileId);
      expect(blocked.numResults).toBe(first.numResults - 1);
      // Once the shared count is SEARCH_COUNT_TTL_MS old it is counted again.
      t.clock.advance(SEARCH_COUNT_TTL_MS - 1);
      expect((await search(query)).numResults).toBe(first.numResults);
      t.clock.advance(1);
      expect((await search(query)).numResults).toBe(first.numResults - 1);
      expect((await search(query, viewer.cookie)).numResults).toBe(first.numResults - 2);
      await t.app.db.db.updateTable('profiles').set({ invisible: 0 }).where('id', '=', sem.profileId).execute();
    });

    it('a block hides both members from each other at once, results and count', async () => {
      const lea = await activeMember(t, 'Leandra', { gender: 'female', region: 'limburg' });
      const max = await activeMember(t, 'Maximus', { gender: 'male', region: 'limburg' });
      const viewer = await activeMember(t, 'Norberta', { gender: 'female', region: 'friesland' });
      const before = await search('country=NL&countryregion=limburg', viewer.cookie);
      expect(before.results.map((r) => r.id)).toEqual(expect.arrayContaining([lea.profileId, max.profileId]));
      expect((await t.request('/api/block.php', post(max.cookie, { profile_id: viewer.profileId }))).status).toBe(200);
      const after = await search('country=NL&countryregion=limburg', viewer.cookie);
      expect(after.results.map((r) => r.id)).not.toContain(max.profileId);
      expect(after.numResults).toBe(before.numResults - 1);
      // Lea searching sees the viewer's region unchanged; Max does not see the viewer.
      const maxView = await search('country=NL&countryregion=friesland', max.cookie);
      expect(maxView.results.map((r) => r.id)).not.toContain(viewer.profileId);
      const leaView = await search('country=NL&countryregion=friesland', lea.cookie);
      expect(leaView.results.map((r) => r.id)).toContain(viewer.profileId);
    });

    it('leaves out the viewer and whom they blocked for every shape of the filters, each shape\'s statement compiled once', async () => {
      const viewer = await activeMember(t, 'Quirinus', { gender: 'male', region: 'utrecht' });
      const blocked = await activeMember(t, 'Reinout', { gender: 'male', region: 'utrecht' });
      expect((await t.request('/api/block.php', post(viewer.cookie, { profile_id: blocked.profileId }))).status).toBe(200);
      // Each query twice in a row and shapes repeated with other values: a statement compiled for one shape or
      // one set of values must never answer for another.
      const cases: [string, number][] = [
        ['gender=male&country=NL&countryregion=utrecht', 2],
        ['gender=female&country=NL&countryregion=utrecht', 0],
        ['country=NL&countryregion=utrecht', 2],
        ['country=NL&countryregion=drenthe', 0],
        ['country=NL&countryregion=utrecht&min_age=18&max_age=99', 2],
        ['country=NL&countryregion=utrecht&min_age=97&max_age=99', 0],
        ['gender=male&country=NL&countryregion=utrecht&min_age=18', 2],
        ['gender=male&country=BE&countryregion=utrecht&min_age=18', 0],
        ['gender=male', 2],
        ['gender=female', 0],
      ];
      for (const [query, excluded] of cases) {
        for (let i = 0; i < 2; i++) {
          const visitor = await search(query);
          const member = await search(query, viewer.cookie);
          expect(member.numResults, query).toBe(Math.max(0, visitor.numResults - excluded));
          expect(member.results.map((r) => r.id), query).not.toContain(viewer.profileId);
          expect(member.results.map((r) => r.id), query).not.toContain(blocked.profileId);
        }
      }
    });

    it('never counts or lists the viewer', async () => {
      const ola = await activeMember(t, 'Olaleye', { gender: 'female', region: 'groningen' });
      const visitor = await search('gender=female&country=NL&countryregion=groningen');
      const own = await search('gender=female&country=NL&countryregion=groningen', ola.cookie);
      expect(visitor.results.map((r) => r.id)).toContain(ola.profileId);
      expect(own.results.map((r) => r.id)).not.toContain(ola.profileId);
      expect(own.numResults).toBe(visitor.numResults - 1);
    });

    it('keeps sites apart: another site never gets this site\'s shared page', async () => {
      const pia = await activeMember(t, 'Piappolo', { gender: 'female', region: 'flevoland' });
      expect((await search('gender=female&country=NL&countryregion=flevoland')).results.map((r) => r.id)).toContain(pia.profileId);
      const elsewhere = await search('gender=female&country=NL&countryregion=flevoland&network=adnet', undefined, 'rijpe.localhost');
      expect(elsewhere.results.map((r) => r.id)).not.toContain(pia.profileId);
    });

    it('a member\'s pages are the shared order without their own and blocked profiles', async () => {
      await seedDemoData(t.app, 300, { avatars: false });
      const viewer = await activeMember(t, 'Quirina', { gender: 'female' });
      const blocker = await activeMember(t, 'Rutger', { gender: 'male' });
      const visitorIds = async (query: string) => {
        const ids: number[] = [];
        for (const page of [1, 2, 3]) ids.push(...(await search(`${query}page=${page}`)).results.map((r) => r.id));
        return ids;
      };
      const before = await visitorIds('');
      expect(before.length).toBeGreaterThan(60);
      // The viewer blocks someone on the shared first page and someone on the second; someone else blocks the viewer.
      const others = (id: number) => id !== viewer.profileId && id !== blocker.profileId;
      // The first of the shared first page and the first of the second (the spill that fills the member's first page).
      const blocked = [before.slice(0, 24).find(others), before.slice(24).find(others)] as number[];
      for (const id of blocked) expect((await t.request('/api/block.php', post(viewer.cookie, { profile_id: id }))).status).toBe(200);
      expect((await t.request('/api/block.php', post(blocker.cookie, { profile_id: viewer.profileId }))).status).toBe(200);
      const shared = await visitorIds('');
      const hidden = new Set([viewer.profileId, ...blocked, blocker.profileId]);
      const expected = shared.filter((id) => !hidden.has(id));
      const first = await search('', viewer.cookie);
      const second = await search('page=2', viewer.cookie);
      expect(first.results.map((r) => r.id)).toEqual(expected.slice(0, 24));
      expect(second.results.map((r) => r.id)).toEqual(expected.slice(24, 48));
      expect(first.numResults).toBe((await search('')).numResults - 4);
    }, 60_000);

    it(`counts up to ${SEARCH_COUNT_CAP} and then says "more"`, async () => {
      // About half of the demo population goes to this site.
      await seedDemoData(t.app, 21_000, { avatars: false });
      // The count of the earlier searches is a hint for SEARCH_COUNT_TTL_MS; count afresh.
      t.clock.advance(SEARCH_COUNT_TTL_MS);
      const broad = await search('');
      expect(broad.numResults).toBe(SEARCH_COUNT_CAP + 1);
      expect(broad.results).toHaveLength(24);
      const narrow = await search('gender=male&country=NL&countryregion=zeeland');
      expect(narrow.numResults).toBeLessThanOrEqual(SEARCH_COUNT_CAP);
    }, 120_000);
  });
}
