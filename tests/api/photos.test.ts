import { enrolStaff } from '../helpers/staff';
import { grantStaffRole } from '../../src/server/admin/staff.service';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_HEADERS, signupMember } from '../helpers/members';
import { bombPng } from '../helpers/images';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';


const jpegWithGps = () =>
  sharp({ create: { width: 300, height: 200, channels: 3, background: '#c55' } })
    .jpeg()
    .withExif({ IFD0: { Copyright: 'secret-owner', ImageDescription: 'home address' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 22/1 0/1' } })
    .toBuffer();

const signupAs = (t: TestApp, name: string) => signupMember(t, name);

for (const dialect of DIALECTS) {
  describe(`photos and moderation (${dialect})`, () => {
    let t: TestApp;
    let ann: Awaited<ReturnType<typeof signupAs>>;
    const upload = (cookie: string, body: Buffer, type = 'image/jpeg') =>
      t.request('/api/photos.php', { method: 'POST', headers: { 'content-type': type, cookie }, body: new Uint8Array(body) });
    const files = async () => (await t.app.storage.list('photos/')).filter((f) => f.endsWith('.webp')).length;
    const rows = async () => (await t.app.db.db.selectFrom('photos').select('id').execute()).length;

    beforeAll(async () => {
      t = await createTestApp(dialect);
      ann = await signupAs(t, 'annie');
    });
    afterAll(async () => t.close());

    it('stores an upload as WebP main image and thumbnail, under inspection, without EXIF or GPS', async () => {
      const res = await upload(ann.cookie, await jpegWithGps());
      expect(res.status).toBe(201);
      const { photo } = await res.json();
      expect(photo).toMatchObject({ status: 'under inspection', is_main: 1 });
      const stored = (await t.app.storage.read(photo.filename))!;
      const meta = await sharp(stored).metadata();
      expect(meta.format).toBe('webp');
      expect(meta.exif).toBeUndefined();
      const raw = await sharp(stored).toBuffer();
      expect(raw.includes(Buffer.from('secret-owner'))).toBe(false);
      expect((await sharp((await t.app.storage.read(photo.thumb_filename))!).metadata()).width).toBe(320);
    });

    it('refuses wrong types, corrupt files and decompression bombs, leaving nothing behind', async () => {
      const before = { files: await files(), rows: await rows() };
      const gif = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } }).gif().toBuffer();
      expect((await upload(ann.cookie, gif, 'image/gif')).status).toBe(415);
      expect((await upload(ann.cookie, Buffer.from('not an image at all'), 'image/png')).status).toBe(400);
      const corrupt = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 7)]);
      expect((await upload(ann.cookie, corrupt)).status).toBe(400);
      const bomb = await upload(ann.cookie, await bombPng(), 'image/png');
      expect(bomb.status).toBe(400);
      expect((await bomb.json()).message).toBe('This file is not an image we can read.');
      expect((await upload(ann.cookie, Buffer.alloc(11 * 1024 * 1024, 1))).status).toBe(413);
      expect({ files: await files(), rows: await rows() }).toEqual(before);
    });

    it('needs a member and allows 3 photos to free members', async () => {
      const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#0a0' } }).png().toBuffer();
      expect((await t.request('/api/photos.php', { method: 'POST', headers: { 'content-type': 'image/png' }, body: new Uint8Array(png) })).status).toBe(403);
      expect((await upload(ann.cookie, png, 'image/png')).status).toBe(201);
      expect((await upload(ann.cookie, png, 'image/png')).status).toBe(201);
      const fourth = await upload(ann.cookie, png, 'image/png');
      expect(fourth.status).toBe(409);
      expect((await fourth.json()).message).toBe('Free members can upload up to 3 photos. Become premium to add more.');
    });

    it('lets the owner choose the main photo and delete photos, but nobody else', async () => {
      const bob = await signupAs(t, 'bobby');
      const own = (await (await t.request('/api/my-profile.php', { headers: { cookie: ann.cookie } })).json()).photos as { id: number; is_main: number }[];
      expect(own.length).toBe(3);
      const second = own[1].id;
      const req = (cookie: string, method: string, p: string, body: unknown) => t.request(p, { method, headers: { ...JSON_HEADERS, cookie }, body: JSON.stringify(body) });
      expect((await req(bob.cookie, 'PUT', '/api/photo-main.php', { photo_id: second })).status).toBe(404);
      expect((await req(bob.cookie, 'DELETE', '/api/photos.php', { photo_id: second })).status).toBe(404);
      expect((await req(ann.cookie, 'PUT', '/api/photo-main.php', { photo_id: second })).status).toBe(200);
      const after = (await (await t.request('/api/my-profile.php', { headers: { cookie: ann.cookie } })).json()).photos as { id: number; is_main: number }[];
      expect(after.find((p) => p.is_main)?.id).toBe(second);
      expect((await req(ann.cookie, 'DELETE', '/api/photos.php', { photo_id: second })).status).toBe(200);
      const left = (await (await t.request('/api/my-profile.php', { headers: { cookie: ann.cookie } })).json()).photos as { id: number; is_main: number }[];
      expect(left).toHaveLength(2);
      expect(left.filter((p) => p.is_main)).toHaveLength(1);
    });

    it('lets only staff approve or reject, and only approved photos are public', async () => {
      const photo = (await t.app.db.db.selectFrom('photos').select(['id', 'profile_id']).where('profile_id', '=', ann.profileId).where('is_main', '=', 1).executeTakeFirstOrThrow());
      const staff = await signupAs(t, 'staffer');
      const body = JSON.stringify({ photo_id: photo.id, decision: 'approve' });
      const denied = await t.request('/api/moderation.php', { method: 'POST', headers: { ...JSON_HEADERS, cookie: staff.cookie }, body });
      expect(denied.status).toBe(403);
      // Staff rights need the moderator role and the second factor on this session.
      await t.app.db.db.updateTable('users').set({ role: 'staff' }).where('id', '=', staff.userId).execute();
      expect((await t.request('/api/moderation.php', { method: 'POST', headers: { ...JSON_HEADERS, cookie: staff.cookie }, body })).status).toBe(403);
      await enrolStaff(t, staff.cookie, 'localhost:4321', 'staffer@example.com', 'operator');
      expect((await t.request('/api/moderation.php', { method: 'POST', headers: { ...JSON_HEADERS, cookie: staff.cookie }, body })).status).toBe(403);
      await grantStaffRole(t.app, 'kindred', 'staffer@example.com', 'moderator');
      await t.app.db.db.updateTable('profiles').set({ status: 'active' }).where('id', '=', ann.profileId).execute();
      const visitorBefore = (await (await t.request(`/api/member.php?id=${ann.profileId}`)).json()).profile;
      expect(visitorBefore.photos).toHaveLength(0);
      expect((await t.request('/api/moderation.php', { method: 'POST', headers: { ...JSON_HEADERS, cookie: staff.cookie }, body })).status).toBe(200);
      expect((await t.request('/api/moderation.php', { method: 'POST', headers: { ...JSON_HEADERS, cookie: staff.cookie }, body })).status).toBe(404);
      const visitorAfter = (await (await t.request(`/api/member.php?id=${ann.profileId}`)).json()).profile;
      expect(visitorAfter.photos.map((p: { id: number }) => p.id)).toEqual([photo.id]);
      expect((await t.request('/api/moderation.php', { method: 'POST', headers: { ...JSON_HEADERS, cookie: staff.cookie }, body: JSON.stringify({ photo_id: photo.id, decision: 'maybe' }) })).status).toBe(400);
    });

    it('saves interests from the fixed list only', async () => {
      const put = (body: unknown) => t.request('/api/interests.php', { method: 'PUT', headers: { ...JSON_HEADERS, cookie: ann.cookie }, body: JSON.stringify(body) });
      expect((await put({ interests: ['wine', 'hiking', 'wine'] })).status).toBe(200);
      expect((await put({ interests: ['wine', 'stamps'] })).status).toBe(400);
      const mine = (await (await t.request('/api/my-profile.php', { headers: { cookie: ann.cookie } })).json()).interests;
      expect(mine.sort()).toEqual(['hiking', 'wine']);
    });
  });
}
