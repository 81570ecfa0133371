import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner } from '../../src/server/jobs/jobs';
import type { ImageScorer } from '../../src/server/safety/images';
import { IMAGE_SCORE_RETENTION_MS, moderationPhotos } from '../../src/server/safety/images.service';
import type { ChatMessage, ConversationView, SendMessageResponse } from '../../src/shared/chat.contract';
import { activeMember, as } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

type Member = Awaited<ReturnType<typeof activeMember>>;
/** With IMAGE_SCORER=fake a pure red image scores as explicit (no real explicit image ships with the tests). */
const RED = '#ff0000';
const picture = (background: string) => sharp({ create: { width: 320, height: 240, channels: 3, background } }).jpeg().toBuffer();

for (const dialect of DIALECTS) {
  describe(`explicit images (${dialect})`, () => {
    let t: TestApp;
    let ann: Member;
    let bob: Member;
    /** The scorer the jobs use: the fake one, unless a test swaps in another. */
    let scorer: ImageScorer;
    const runJobs = () => createJobRunner(t.app).runDue();
    const sendImage = async (from: Member, to: Member, background: string) => {
      const res = await t.request(`/api/chat-image.php?profile_id=${to.profileId}&client_id=${randomUUID()}`, {
        method: 'POST', headers: { cookie: from.cookie, 'content-type': 'image/jpeg' }, body: new Uint8Array(await picture(background)),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as SendMessageResponse;
    };
    const seenBy = async (member: Member, conversation: number, id: number) => {
      const view = (await (await t.request(`/api/chat.php?conversation=${conversation}`, as(member.cookie))).json()) as ConversationView;
      return view.messages.find((m: ChatMessage) => m.id === id);
    };
    const scoreRow = (subject: 'chat' | 'photo', id: number) =>
      t.app.db.db.selectFrom('image_safety_scores').selectAll().where('subject', '=', subject).where('subject_id', '=', id).executeTakeFirst();
    const uploadPhoto = async (member: Member, background: string) => {
      const res = await t.request('/api/photos.php', { method: 'POST', headers: { cookie: member.cookie, 'content-type': 'image/jpeg' }, body: new Uint8Array(await picture(background)) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { photo: { id: number } }).photo.id;
    };

    beforeAll(async () => {
      t = await createTestApp(dialect, { IMAGE_SCORER: 'fake' });
      scorer = t.app.images;
      ann = await activeMember(t, 'annie', { credits: 500 });
      bob = await activeMember(t, 'bobby', { credits: 500 });
    });
    afterAll(async () => t.close());

    it('a chat image is pending until its job scored it, then explicit for both members, with an event to each', async () => {
      const sent = await sendImage(ann, bob, RED);
      expect(sent.message.image?.safety).toBe('pending');
      expect(await scoreRow('chat', sent.message.id)).toMatchObject({ status: 'pending', site_id: 'kindred' });
      expect((await seenBy(bob, sent.conversation_id, sent.message.id))?.image?.safety).toBe('pending');

      expect(await runJobs()).toBeGreaterThanOrEqual(1);
      const row = await scoreRow('chat', sent.message.id);
      expect(row).toMatchObject({ status: 'scored', explicit: 1 });
      expect(Number(row?.porn)).toBeCloseTo(0.95, 2);
      // The state travels with the message; each viewer's island decides (the sender sees their own image).
      expect((await seenBy(bob, sent.conversation_id, sent.message.id))?.image?.safety).toBe('explicit');
      expect((await seenBy(ann, sent.conversation_id, sent.message.id))?.image?.safety).toBe('explicit');
      const events = await t.app.db.db.selectFrom('events').select(['user_id', 'data']).where('type', '=', 'image_safety').execute();
      expect(events.map((e) => e.user_id).sort()).toEqual([ann.userId, bob.userId].sort());
      expect(JSON.parse(events[0].data)).toMatchObject({ conversation_id: sent.conversation_id, message_id: sent.message.id, safety: 'explicit' });
    });

    it('a benign chat image becomes ok', async () => {
      const sent = await sendImage(bob, ann, '#3a7bd5');
      await runJobs();
      expect(await scoreRow('chat', sent.message.id)).toMatchObject({ status: 'scored', explicit: 0 });
      expect((await seenBy(ann, sent.conversation_id, sent.message.id))?.image?.safety).toBe('ok');
    });

    it('a stored file that turned corrupt is marked unchecked: the job is done, the worker lives on', async () => {
      const sent = await sendImage(ann, bob, '#3a7bd5');
      const stored = await t.app.db.db.selectFrom('messages').select('image').where('id', '=', sent.message.id).executeTakeFirstOrThrow();
      await t.app.storage.put(JSON.parse(stored.image as string).file, Buffer.from('\x89PNG\r\n\x1a\n garbage'));
      await runJobs();
      expect(await scoreRow('chat', sent.message.id)).toMatchObject({ status: 'failed' });
      expect((await seenBy(bob, sent.conversation_id, sent.message.id))?.image?.safety).toBe('unchecked');
      const job = await t.app.db.db.selectFrom('jobs').select('status').where('unique_key', '=', `score_image:chat:${sent.message.id}`).executeTakeFirstOrThrow();
      expect(job.status).toBe('done');
      // The next image is scored as usual.
      const next = await sendImage(ann, bob, RED);
      await runJobs();
      expect(await scoreRow('chat', next.message.id)).toMatchObject({ status: 'scored', explicit: 1 });
    });

    it('a model that fails leaves the image pending and the job is retried later', async () => {
      t.app.images = { name: 'broken', score: async () => { throw new Error('model crashed'); }, close: async () => undefined };
      try {
        const sent = await sendImage(ann, bob, RED);
        await runJobs();
        expect(await scoreRow('chat', sent.message.id)).toMatchObject({ status: 'pending' });
        const job = await t.app.db.db.selectFrom('jobs').select(['status', 'attempts', 'run_at']).where('unique_key', '=', `score_image:chat:${sent.message.id}`).executeTakeFirstOrThrow();
        expect(job).toMatchObject({ status: 'pending', attempts: 1 });
        t.app.images = scorer;
        t.clock.advance(60_000);
        await runJobs();
        expect(await scoreRow('chat', sent.message.id)).toMatchObject({ status: 'scored', explicit: 1 });
      } finally {
        t.app.images = scorer;
      }
    });

    it('an explicit profile photo goes to the front of the moderation queue with its score; other sites see none', async () => {
      const benign = await uploadPhoto(bob, '#3a7bd5');
      const explicit = await uploadPhoto(ann, RED);
      const unscored = await moderationPhotos(t.app.db.db, 'kindred');
      expect(unscored.map((p) => p.id)).toEqual([benign, explicit]);
      expect(unscored[0].explicit_score).toBeNull();
      await runJobs();
      const queue = await moderationPhotos(t.app.db.db, 'kindred');
      expect(queue.map((p) => p.id)).toEqual([explicit, benign]);
      expect(queue[0]).toMatchObject({ explicit: true });
      expect(queue[0].explicit_score).toBeCloseTo(0.97, 2);
      expect(queue[1]).toMatchObject({ explicit: false });
      expect(await moderationPhotos(t.app.db.db, 'maennerhafen')).toEqual([]);
    });

    it('a photo deleted before its job ran leaves no score behind', async () => {
      const id = await uploadPhoto(bob, RED);
      expect((await t.request('/api/photos.php', as(bob.cookie, { method: 'DELETE', body: JSON.stringify({ photo_id: id }) }))).status).toBe(200);
      await runJobs();
      expect(await scoreRow('photo', id)).toBeUndefined();
    });

    it('the setting shows explicit images unblurred; bad input changes nothing', async () => {
      const get = async () => ((await (await t.request('/api/account-settings.php', as(bob.cookie))).json()) as { user: { show_explicit_images: boolean } }).user;
      expect((await get()).show_explicit_images).toBe(false);
      const put = (body: unknown) => t.request('/api/account-settings.php', as(bob.cookie, { method: 'PUT', body: JSON.stringify(body) }));
      expect((await put({ show_explicit_images: 'yes' })).status).toBe(400);
      expect((await get()).show_explicit_images).toBe(false);
      expect((await put({ show_explicit_images: true })).status).toBe(200);
      expect((await get()).show_explicit_images).toBe(true);
      const user = await (await t.request('/api/user.php', as(bob.cookie))).json();
      expect(user.user.show_explicit_images).toBe(true);
    });

    it('scores are pruned after 90 days', async () => {
      expect((await t.app.db.db.selectFrom('image_safety_scores').select('subject_id').execute()).length).toBeGreaterThan(0);
      t.clock.advance(IMAGE_SCORE_RETENTION_MS + 3600_000);
      await t.app.db.db.insertInto('jobs').values({
        name: 'prune', unique_key: `prune:test-${dialect}`, payload: '{}', status: 'pending', run_at: t.clock.now(), attempts: 0, max_attempts: 1,
        locked_by: null, lease_until: null, last_error: null, created_at: t.clock.now(), finished_at: null,
      }).execute();
      await runJobs();
      expect(await t.app.db.db.selectFrom('image_safety_scores').select('subject_id').execute()).toEqual([]);
    });
  });
}
