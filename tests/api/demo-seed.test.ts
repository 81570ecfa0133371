import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ageOn } from '../../src/shared/accounts.contract';
import { avatarSvg, GREY_HAIR, OLDER_AGE } from '../../src/server/db/demo-avatars';
import { refreshPlannerStatistics, seedDemoData, seedDemoMembers } from '../../src/server/db/seed';
import { listChats } from '../../src/server/chat/chat.service';
import { listLikes, nextPendingLike } from '../../src/server/likes/likes.service';
import { lookingFor } from '../../src/shared/profile-options';
import { profileForViewer } from '../../src/server/profiles/profiles.service';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`demo seed (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect);
      await seedDemoData(t.app, 300);
    });
    afterAll(() => t.close());

    const load = async () => {
      const db = t.app.db.db;
      const profiles = await db.selectFrom('profiles').select(['id', 'site_id', 'name', 'gender', 'birth_date', 'hair_color', 'has_photo']).execute();
      const photos = await db.selectFrom('photos').select(['profile_id', 'filename', 'status', 'is_main']).execute();
      return { profiles, photos };
    };

    it.runIf(dialect === 'postgres')('gives the planner statistics of this schema\'s tables after seeding (and of no other schema)', async () => {
      await refreshPlannerStatistics(t.app);
      const { rows } = await sql<{ relname: string; analyzed: boolean }>`select relname, (last_analyze is not null) as analyzed from pg_stat_user_tables
        where schemaname = current_schema() and relname in ('profiles', 'likes', 'photos')`.execute(t.app.db.db);
      expect(rows.map((r) => [r.relname, r.analyzed]).sort()).toEqual([['likes', true], ['photos', true], ['profiles', true]]);
      // The planner now counts the seeded active profiles instead of guessing one.
      const { rows: plan } = await sql<{ 'QUERY PLAN': string }>`explain select id from profiles where site_id = ${t.app.sites.defaultSite.id} and status = 'active'`.execute(t.app.db.db);
      const estimate = Number(/rows=(\d+)/.exec(plan[0]['QUERY PLAN'])?.[1]);
      expect(estimate).toBeGreaterThan(50);
    });

    it('draws each avatar from the member\'s gender, age and hair colour', async () => {
      const { profiles, photos } = await load();
      const mains = new Map(photos.filter((p) => p.is_main === 1).map((p) => [p.profile_id, p.filename]));
      let older = 0;
      let olderGrey = 0;
      for (const p of profiles) {
        const file = mains.get(p.id);
        expect(Boolean(p.has_photo)).toBe(Boolean(file));
        if (!file) continue;
        const subject = { gender: p.gender as 'male' | 'female', age: ageOn(p.birth_date, t.app.clock.now()), hair_color: p.hair_color };
        const svg = (await t.app.storage.read(file))!.toString('utf8');
        expect(svg).toBe(avatarSvg(subject, `${p.site_id}:${p.name}:${p.birth_date}`));
        if (subject.age >= OLDER_AGE) {
          older++;
          if (GREY_HAIR.some((hex) => svg.includes(`#${hex}`))) olderGrey++;
        }
      }
      expect(older).toBeGreaterThan(20);
      // Most members of 50 and over are drawn grey or white-haired.
      expect(olderGrey / older).toBeGreaterThan(0.6);
    });

    it('gives 45–60 % of the demo members 2 to 6 approved photos, stored under unguessable names', async () => {
      const { profiles, photos } = await load();
      const stored = new Set([...(await t.app.storage.list('photos/')), ...(await t.app.storage.list('avatars/'))]);
      const perProfile = new Map<number, typeof photos>();
      for (const photo of photos) perProfile.set(photo.profile_id, [...(perProfile.get(photo.profile_id) ?? []), photo]);
      const several = [...perProfile.values()].filter((list) => list.length >= 2);
      const share = several.length / profiles.length;
      expect(share).toBeGreaterThanOrEqual(0.45);
      expect(share).toBeLessThanOrEqual(0.6);
      for (const list of perProfile.values()) {
        expect(list.length).toBeLessThanOrEqual(6);
        expect(list.filter((p) => p.is_main === 1)).toHaveLength(1);
        for (const photo of list) {
          expect(photo.status).toBe('active');
          expect(stored.has(photo.filename)).toBe(true);
          if (photo.is_main === 0) expect(photo.filename).toMatch(/^photos\/\d+\/demo-[0-9a-f]{16}\.svg$/);
        }
      }
      // Some members have no photo at all, as in real life.
      expect(profiles.filter((p) => !perProfile.has(p.id)).length).toBeGreaterThan(0);
    });

    it('shows a free viewer one photo of a member with several and tells how many more there are', async () => {
      const { photos } = await load();
      const counts = new Map<number, number>();
      for (const photo of photos) counts.set(photo.profile_id, (counts.get(photo.profile_id) ?? 0) + 1);
      const [id, count] = [...counts.entries()].find(([, n]) => n >= 3) ?? [];
      expect(id).toBeDefined();
      const profile = await t.app.db.db.selectFrom('profiles').select('site_id').where('id', '=', id as number).executeTakeFirstOrThrow();
      const site = t.app.sites.sites.find((s) => s.id === profile.site_id);
      const view = await profileForViewer(t.app, site as NonNullable<typeof site>, id as number, null);
      expect(view?.photos).toHaveLength(1);
      expect(view?.hiddenPhotos).toBe((count as number) - 1);
    });

    it('gives each site\'s demo logins received likes from members of the kind they look for, with no like-back prompt waiting', async () => {
      await seedDemoMembers(t.app);
      const db = t.app.db.db;
      for (const site of t.app.sites.sites) {
        for (const [kind, received, matches] of [['free', 2, 0], ['premium', 4, 1]] as const) {
          const user = await db.selectFrom('users').selectAll().where('site_id', '=', site.id).where('email_normalized', '=', `${kind}@${site.domains[0]}`).executeTakeFirstOrThrow();
          const own = await db.selectFrom('profiles').select(['gender', 'sexuality', 'birth_date']).where('user_id', '=', user.id).executeTakeFirstOrThrow();
          const likes = await listLikes(t.app, site, user);
          expect(likes.liked_by.length, `${site.id} ${kind}`).toBe(received);
          expect(likes.matches.length, `${site.id} ${kind}`).toBe(matches);
          // New but already shown: the nav's badge counts them, and no like-back prompt opens at login.
          expect(likes.new_likes, `${site.id} ${kind}`).toBe(received - matches);
          expect((await nextPendingLike(t.app, site, user)).profile, `${site.id} ${kind}`).toBeNull();
          const likers = await db.selectFrom('profiles').select(['gender', 'fictional', 'user_id', 'birth_date']).where('id', 'in', likes.liked_by.map((p) => p.id)).execute();
          expect(likers.every((p) => p.gender === lookingFor(own.gender, own.sexuality) && p.fictional === 0 && p.user_id === null), `${site.id} ${kind}`).toBe(true);
          // The members nearest the demo login's age: none left out is nearer than the farthest chosen.
          const days = (birth: string) => Math.abs(Date.parse(birth) - Date.parse(own.birth_date)) / 86_400_000;
          const others = await db.selectFrom('profiles').select('birth_date').where('site_id', '=', site.id).where('user_id', 'is', null).where('status', '=', 'active')
            .where('gender', '=', lookingFor(own.gender, own.sexuality)!).where('fictional', '=', 0).where('has_photo', '=', 1).where('invisible', '=', 0)
            .where('id', 'not in', likes.liked_by.map((p) => p.id)).execute();
          expect(Math.max(...likers.map((p) => days(p.birth_date))), `${site.id} ${kind}`).toBeLessThanOrEqual(Math.min(...others.map((p) => days(p.birth_date))));
        }
      }
      // Seeding again (a restart) adds nothing.
      const before = await db.selectFrom('likes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      await seedDemoMembers(t.app);
      expect(await db.selectFrom('likes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual(before);
    });

    it('gives each site\'s demo logins a conversation: their charged message to a fictional profile and its unread answer, written by the demo operator', async () => {
      await seedDemoMembers(t.app);
      const db = t.app.db.db;
      for (const site of t.app.sites.sites) {
        const operator = await db.selectFrom('users').select('id').where('site_id', '=', site.id).where('email_normalized', '=', `operator@${site.domains[0]}`).executeTakeFirstOrThrow();
        for (const kind of ['free', 'premium'] as const) {
          const user = await db.selectFrom('users').selectAll().where('site_id', '=', site.id).where('email_normalized', '=', `${kind}@${site.domains[0]}`).executeTakeFirstOrThrow();
          const { chats, unread_messages } = await listChats(t.app, site, user);
          expect(chats.length, `${site.id} ${kind}`).toBe(1);
          expect(unread_messages, `${site.id} ${kind}`).toBe(1);
          const [chat] = chats;
          expect(chat!.profile.fictional, `${site.id} ${kind}`).toBe(true);
          expect(chat!.last_message?.from_me).toBe(false);
          const messages = await db.selectFrom('messages').select(['sender_profile_id', 'credits', 'operator_user_id', 'body']).where('conversation_id', '=', chat!.conversation.id).orderBy('id').execute();
          expect(messages.map((m) => [m.sender_profile_id === chat!.profile.id, m.operator_user_id])).toEqual([[false, null], [true, operator.id]]);
          // In the site's language.
          expect(messages[0]!.body).toContain(site.domain_language.startsWith('de') ? 'Hallo' : site.domain_language.startsWith('nl') ? 'Hoi' : 'Hi');
          // Charged and booked as any message: the balance is the ledger's.
          expect(messages[0]!.credits).toBe(site.message_credits);
          const ledger = await db.selectFrom('credit_ledger').select(['delta', 'reason']).where('user_id', '=', user.id).orderBy('id').execute();
          expect(ledger.map((l) => l.reason)).toEqual([kind === 'premium' ? 'purchase' : 'signup_bonus', 'message']);
          const balance = ledger.reduce((n, l) => n + Number(l.delta), 0);
          expect(Number(user.credits)).toBe(balance);
          expect(Number(ledger[1]!.delta)).toBe(-site.message_credits);
        }
      }
      // Seeding again (a restart) adds nothing.
      const before = await db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      await seedDemoMembers(t.app);
      expect(await db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual(before);
    });
  });
}
