import { enrolStaff } from '../helpers/staff';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUploadHandler } from '../../src/server/static/uploads';
import { JSON_HEADERS, activeMember, post } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

type Member = Awaited<ReturnType<typeof activeMember>>;
type Photo = { id: number; filename: string; thumb_filename: string; status: string };

for (const dialect of DIALECTS) {
  describe(`who may fetch files under /uploads (${dialect})`, () => {
    let t: TestApp;
    let server: Server;
    let base: string;
    let ann: Member;
    let bob: Member;
    let staff: Member;
    let otherSiteStaffCookie: string;

    /** The real upload handler of the node server, on its own port. */
    const fetchFile = (file: string, init: { cookie?: string; host?: string; method?: string } = {}) =>
      fetch(`${base}/uploads/${file}`, { method: init.method ?? 'GET', headers: { ...(init.cookie ? { cookie: init.cookie } : {}), ...(init.host ? { 'x-site-host': init.host } : {}) } });
    const upload = async (m: Member): Promise<Photo> => {
      const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#a50' } }).png().toBuffer();
      const res = await t.request('/api/photos.php', { method: 'POST', headers: { 'content-type': 'image/png', cookie: m.cookie }, body: new Uint8Array(png) });
      expect(res.status).toBe(201);
      return (await res.json()).photo;
    };
    const moderate = (photo: Photo, decision: 'approve' | 'reject') =>
      t.request('/api/moderation.php', post(staff.cookie, { photo_id: photo.id, decision }));
    const onDisk = (photo: Photo) => Promise.all([photo.filename, photo.thumb_filename].map(async (f) => (await t.app.storage.head(f)) !== null));

    beforeAll(async () => {
      t = await createTestApp(dialect);
      const handler = createUploadHandler(t.app);
      // Browsers send the Host of the site; fetch cannot set Host, so the test passes it along.
      server = createServer((req, res) => {
        if (req.headers['x-site-host']) req.headers.host = String(req.headers['x-site-host']);
        handler(req, res);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      ann = await activeMember(t, 'Ann');
      bob = await activeMember(t, 'Bob', { gender: 'male' });
      staff = await activeMember(t, 'Stella');
      await enrolStaff(t, staff.cookie, 'localhost:4321', 'stella@example.com', 'moderator');
      // Staff of another site (Männerhafen, on gay.localhost).
      const res = await t.request('/api/signup.php', {
        method: 'POST', host: 'gay.localhost', headers: JSON_HEADERS,
        body: JSON.stringify({ email: 'mod@example.com', name: 'Moritz', password: 'correct horse battery', date_of_birth: '1980-01-01', gender: 'male' }),
      });
      expect(res.status).toBe(200);
      otherSiteStaffCookie = res.headers.get('set-cookie')!.split(';')[0];
      await t.app.db.db.updateTable('users').set({ role: 'staff' }).where('email_normalized', '=', 'mod@example.com').execute();
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    });

    it('shows a photo under inspection only to its owner and the same site\'s staff, never cached', async () => {
      const photo = await upload(ann);
      for (const file of [photo.filename, photo.thumb_filename]) {
        const own = await fetchFile(file, { cookie: ann.cookie });
        expect(own.status).toBe(200);
        expect(own.headers.get('content-type')).toBe('image/webp');
        expect(own.headers.get('cache-control')).toBe('private, no-store');
        expect((await fetchFile(file, { cookie: staff.cookie })).status).toBe(200);
        expect((await fetchFile(file)).status).toBe(404);
        expect((await fetchFile(file, { cookie: bob.cookie })).status).toBe(404);
        expect((await fetchFile(file, { cookie: 'kd_session=forged-token-value' })).status).toBe(404);
        // Staff of another site: neither on their own host nor on this one.
        expect((await fetchFile(file, { cookie: otherSiteStaffCookie, host: 'gay.localhost' })).status).toBe(404);
        expect((await fetchFile(file, { cookie: otherSiteStaffCookie })).status).toBe(404);
        // This site's staff asking through another site's host.
        expect((await fetchFile(file, { cookie: staff.cookie, host: 'gay.localhost' })).status).toBe(404);
      }
      // A staff account whose session has not passed the second factor sees nothing private.
      const fresh = await t.request('/api/user.php', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ email: 'stella@example.com', password: 'correct horse battery' }) });
      const unverified = fresh.headers.get('set-cookie')!.split(';')[0];
      expect((await fetchFile(photo.filename, { cookie: unverified })).status).toBe(404);
      expect((await fetchFile(photo.filename, { cookie: ann.cookie, method: 'HEAD' })).status).toBe(200);
      expect((await fetchFile(photo.filename, { method: 'HEAD' })).status).toBe(404);
    });

    it('makes a photo public with a long cache once approved', async () => {
      const photo = await upload(bob);
      expect((await moderate(photo, 'approve')).status).toBe(200);
      const res = await fetchFile(photo.thumb_filename);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
    });

    it('deletes a rejected photo\'s files and serves it to nobody', async () => {
      const photo = await upload(bob);
      expect(await onDisk(photo)).toEqual([true, true]);
      expect((await moderate(photo, 'reject')).status).toBe(200);
      expect(await onDisk(photo)).toEqual([false, false]);
      expect((await fetchFile(photo.filename, { cookie: bob.cookie })).status).toBe(404);
    });

    it('deletes the files when the member deletes a photo', async () => {
      const photo = await upload(ann);
      expect((await t.request('/api/photos.php', post(ann.cookie, { photo_id: photo.id }, 'DELETE'))).status).toBe(200);
      expect(await onDisk(photo)).toEqual([false, false]);
      expect((await fetchFile(photo.filename, { cookie: ann.cookie })).status).toBe(404);
    });

    it('never serves chat images from /uploads (only the member-checked chat-image call), nor unknown or escaping paths', async () => {
      await t.app.db.db.updateTable('users').set({ credits: 100 }).where('id', '=', ann.userId).execute();
      const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#05a' } }).png().toBuffer();
      const sent = await t.request(`/api/chat-image.php?profile_id=${bob.profileId}&client_id=upload-test-1`, {
        method: 'POST', headers: { 'content-type': 'image/png', cookie: ann.cookie }, body: new Uint8Array(png),
      });
      expect(sent.status).toBe(201);
      const messageId = (await sent.json()).message.id as number;
      const row = await t.app.db.db.selectFrom('messages').select('image').where('id', '=', messageId).executeTakeFirstOrThrow();
      const { file, thumb } = JSON.parse(row.image as string) as { file: string; thumb: string };
      for (const cookie of [undefined, ann.cookie, bob.cookie, staff.cookie]) {
        expect((await fetchFile(file, { cookie })).status).toBe(404);
        expect((await fetchFile(thumb, { cookie })).status).toBe(404);
      }
      const viaApi = await t.request(`/api/chat-image.php?message=${messageId}`, { headers: { cookie: bob.cookie } });
      expect(viaApi.status).toBe(200);
      expect(viaApi.headers.get('cache-control')).toMatch(/^private/);
      expect((await t.request(`/api/chat-image.php?message=${messageId}`, { headers: { cookie: staff.cookie } })).status).toBe(404);
      for (const bad of ['photos/../../etc/passwd', '..%2f..%2fkindred.db', 'photos/%E0%A4%A', 'photos/x.webp%00.png', 'nope.txt']) {
        expect((await fetchFile(bad, { cookie: ann.cookie })).status).toBe(404);
      }
    });
  });
}
