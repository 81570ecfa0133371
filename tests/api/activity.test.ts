import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserById } from '../../src/server/accounts/accounts.repository';
import { memberActivity } from '../../src/server/notifications/activity';
import { activeMember, post } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

type Member = Awaited<ReturnType<typeof activeMember>>;

// The notifications page's activity: unread messages, likes and matches, through the Likes and Messages services.
for (const dialect of DIALECTS) {
  describe(`member activity (${dialect})`, () => {
    let t: TestApp;
    const activityOf = async (m: Member) => memberActivity(t.app, t.app.sites.sites[0]!, (await findUserById(t.app.db.db, m.userId))!);
    const like = async (from: Member, to: Member) => expect((await t.request('/api/like.php', post(from.cookie, { profile_id: to.profileId }))).status).toBe(200);
    const say = async (from: Member, to: Member) => {
      const res = await t.request('/api/messages.php', post(from.cookie, { kind: 'text', client_id: randomUUID(), text: 'Hello there', profile_id: to.profileId }));
      expect(res.status).toBe(201);
    };

    beforeAll(async () => {
      t = await createTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
    });

    it('lists unread messages, likes and matches newest first, leaves out blockers and another site, and changes nothing', async () => {
      const ann = await activeMember(t, 'Actann', { gender: 'female' });
      const [ben, cy, dov, eli] = [
        await activeMember(t, 'Actben', { gender: 'male', credits: 100, paid: true }), await activeMember(t, 'Actcy', { gender: 'male' }),
        await activeMember(t, 'Actdov', { gender: 'male' }), await activeMember(t, 'Acteli', { gender: 'male', credits: 100, paid: true }),
      ];
      expect(await activityOf(ann)).toEqual([]);
      await like(cy, ann);
      t.clock.advance(1000);
      await like(dov, ann);
      await like(ann, dov);
      t.clock.advance(1000);
      await say(ben, ann);
      await say(ben, ann);
      t.clock.advance(1000);
      // Eli likes Ann, then blocks her: he is not in her activity (as not in her Likes).
      await like(eli, ann);
      expect((await t.request('/api/block.php', post(eli.cookie, { profile_id: ann.profileId }))).status).toBe(200);

      const activity = await activityOf(ann);
      expect(activity.map((a) => [a.kind, a.profile.id])).toEqual([['messages', ben.profileId], ['match', dov.profileId], ['liked_you', cy.profileId]]);
      expect(activity[0]).toMatchObject({ count: 2, href: expect.stringMatching(/^\/chats\/\d+$/) });
      expect(activity[2]).toMatchObject({ unseen: true, href: `/members/${cy.profileId}` });
      expect(activity[0]!.at).toBeGreaterThan(activity[1]!.at);
      // Reading it marks nothing seen or read.
      expect((await activityOf(ann)).map((a) => a.kind === 'messages' ? a.count : a.unseen)).toEqual([2, true, true]);

      // Another site's member of the same name is someone else: Ann's activity stays hers.
      await t.app.db.db.updateTable('profiles').set({ site_id: 'maennerhafen' }).where('id', '=', cy.profileId).execute();
      expect((await activityOf(ann)).map((a) => a.profile.id)).not.toContain(cy.profileId);
    });
  });
}
