import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseExpiredAccounts } from '../../src/server/accounts/accounts.service';
import { readConfig } from '../../src/server/config';
import { createUploadHandler } from '../../src/server/static/uploads';
import { createStorage, type Storage } from '../../src/server/storage';
import { activeMember, post } from '../helpers/members';
import { type S3TestServer, startS3Server } from '../helpers/s3-server';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

/**
 * The same suite on both upload stores: the local folder and an S3-compatible bucket (s3rver,
 * started here: no setup needed). What the app stored is checked in the folder or the bucket itself,
 * not only through the app's storage object.
 */
type Backend = 'local' | 's3';
type Member = Awaited<ReturnType<typeof activeMember>>;
type Photo = { id: number; filename: string; thumb_filename: string; status: string };
const DAY = 86_400_000;

const png = (color: string, size = 48) => sharp({ create: { width: size, height: size, channels: 3, background: color } }).png().toBuffer();

describe.each(['local', 's3'] as Backend[])('upload storage: %s', (backend) => {
  let s3: S3TestServer | null = null;
  let env: Record<string, string>;
  /** Every key in the bucket or folder, listed without the app's storage code. */
  let rawKeys: () => Promise<string[]>;

  beforeAll(async () => {
    if (backend === 's3') {
      const server = await startS3Server();
      s3 = server;
      env = { ...server.env };
      const client = new S3Client({
        endpoint: server.endpoint, region: server.region, forcePathStyle: true,
        credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
      });
      rawKeys = async () => ((await client.send(new ListObjectsV2Command({ Bucket: server.bucket }))).Contents ?? []).map((o) => o.Key as string).sort();
    } else {
      const dir = mkdtempSync(path.join(tmpdir(), 'kindred-uploads-'));
      env = { STORAGE_URL: `file:${dir}` };
      rawKeys = async () => readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/')).sort();
    }
  });
  afterAll(async () => {
    await s3?.stop();
  });

  describe('the store', () => {
    let storage: Storage;
    beforeAll(() => {
      storage = createStorage(readConfig({ NODE_ENV: 'test', ...env }).storage);
    });
    afterAll(() => storage.close());

    it('stores, streams, lists and deletes objects; a missing one is null', async () => {
      await storage.check();
      const body = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
      await storage.put('contract/1/a.svg', body);
      await storage.put('contract/1/b-thumb.webp', Buffer.alloc(3000, 7), 'image/webp');
      await storage.put('contract/2/c.webp', Buffer.alloc(10, 1));
      expect(await rawKeys()).toEqual(expect.arrayContaining(['contract/1/a.svg', 'contract/1/b-thumb.webp', 'contract/2/c.webp']));
      expect(await storage.read('contract/1/a.svg')).toEqual(body);
      const head = await storage.head('contract/1/b-thumb.webp');
      expect(head?.size).toBe(3000);
      expect(head?.etag).toMatch(/^".+"$/);
      const object = await storage.get('contract/1/b-thumb.webp');
      expect(object?.size).toBe(3000);
      expect(object?.etag).toBe(head?.etag);
      const chunks: Buffer[] = [];
      for await (const chunk of object!.body) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks)).toEqual(Buffer.alloc(3000, 7));
      expect(await storage.list('contract/1/')).toEqual(['contract/1/a.svg', 'contract/1/b-thumb.webp']);
      expect(await storage.get('contract/1/none.webp')).toBeNull();
      expect(await storage.head('contract/1/none.webp')).toBeNull();
      expect(await storage.read('contract/9/none.webp')).toBeNull();

      await storage.delete(['contract/1/a.svg', 'contract/1/none.webp']);
      expect(await storage.head('contract/1/a.svg')).toBeNull();
      expect(await storage.deletePrefix('contract/1/')).toBe(1);
      expect(await storage.list('contract/1/')).toEqual([]);
      expect(await storage.list('contract/')).toEqual(['contract/2/c.webp']);
      await storage.delete(['contract/2/c.webp']);
      expect((await rawKeys()).filter((k) => k.startsWith('contract/'))).toEqual([]);
    });

    it('refuses keys that could leave the store or name hidden files', async () => {
      for (const key of ['../x.webp', 'photos/../../etc/passwd', '.hidden', 'photos//x.webp', '/abs.webp', 'photos/x.webp\0', 'a b.webp', '']) {
        await expect(storage.put(key, 'x')).rejects.toThrow(/invalid key/);
        await expect(storage.get(key)).rejects.toThrow(/invalid key/);
      }
      await expect(storage.deletePrefix('photos')).rejects.toThrow(/invalid prefix/);
      await expect(storage.deletePrefix('')).rejects.toThrow(/invalid prefix/);
    });

    it('reports an unreachable store', async () => {
      if (backend === 's3') {
        const wrongBucket = createStorage(readConfig({ NODE_ENV: 'test', ...env, STORAGE_URL: 's3://no-such-bucket' }).storage);
        await expect(wrongBucket.check()).rejects.toThrow();
        wrongBucket.close();
        // Nothing listens on this port (an S3 server started and stopped).
        const gone = await startS3Server();
        await gone.stop();
        const down = createStorage(readConfig({ NODE_ENV: 'test', ...gone.env }).storage);
        await expect(down.check()).rejects.toThrow();
        down.close();
      } else {
        // A folder below a plain file can be neither made nor written.
        const file = path.join(mkdtempSync(path.join(tmpdir(), 'kindred-file-')), 'plain');
        writeFileSync(file, 'x');
        await expect(createStorage({ kind: 'local', dir: path.join(file, 'uploads') }).check()).rejects.toThrow();
      }
    });
  });

  for (const dialect of DIALECTS) {
    describe(`photos, chat images and erasure (${dialect})`, () => {
      let t: TestApp;
      let server: Server;
      let base: string;
      let ann: Member;
      let bob: Member;

      const fetchFile = (file: string, init: { cookie?: string; headers?: Record<string, string>; method?: string } = {}) =>
        fetch(`${base}/uploads/${file}`, { method: init.method ?? 'GET', headers: { ...init.headers, ...(init.cookie ? { cookie: init.cookie } : {}) } });
      const upload = async (m: Member, color = '#a50'): Promise<Photo> => {
        const res = await t.request('/api/photos.php', { method: 'POST', headers: { 'content-type': 'image/png', cookie: m.cookie }, body: new Uint8Array(await png(color)) });
        expect(res.status).toBe(201);
        return (await res.json()).photo;
      };
      const sendImage = async (from: Member, to: Member, clientId: string) => {
        const res = await t.request(`/api/chat-image.php?profile_id=${to.profileId}&client_id=${clientId}`, {
          method: 'POST', headers: { 'content-type': 'image/png', cookie: from.cookie }, body: new Uint8Array(await png('#05a', 32)),
        });
        expect(res.status).toBe(201);
        const id = (await res.json()).message.id as number;
        const row = await t.app.db.db.selectFrom('messages').select('image').where('id', '=', id).executeTakeFirstOrThrow();
        return { id, ...(JSON.parse(row.image as string) as { file: string; thumb: string }) };
      };
      const approve = (photo: Photo) => t.app.db.db.updateTable('photos').set({ status: 'active' }).where('id', '=', photo.id).execute();

      beforeAll(async () => {
        t = await createTestApp(dialect, env);
        expect(t.app.storage.description).toMatch(backend === 's3' ? /^s3:\/\// : /^folder /);
        const handler = createUploadHandler(t.app);
        server = createServer(handler);
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        ann = await activeMember(t, `Ann${dialect}`, { credits: 500 });
        bob = await activeMember(t, `Bob${dialect}`, { gender: 'male', credits: 500 });
      });
      afterAll(async () => {
        await new Promise((resolve) => server.close(resolve));
        await t.close();
      });

      it('stores an upload in the store and shows it, while under inspection, to its owner only', async () => {
        const photo = await upload(ann);
        expect(await rawKeys()).toEqual(expect.arrayContaining([photo.filename, photo.thumb_filename]));
        const stored = await t.app.storage.read(photo.filename);
        expect((await sharp(stored!).metadata()).format).toBe('webp');
        const own = await fetchFile(photo.filename, { cookie: ann.cookie });
        expect(own.status).toBe(200);
        expect(own.headers.get('cache-control')).toBe('private, no-store');
        expect(Buffer.from(await own.arrayBuffer())).toEqual(stored);
        for (const cookie of [undefined, bob.cookie, 'kd_session=forged-token-value']) {
          expect((await fetchFile(photo.filename, { cookie })).status).toBe(404);
          expect((await fetchFile(photo.thumb_filename, { cookie })).status).toBe(404);
        }
      });

      it('serves an approved photo to anyone with a long immutable cache and its ETag, 304 when unchanged', async () => {
        const photo = await upload(bob, '#0a5');
        await approve(photo);
        const res = await fetchFile(photo.thumb_filename);
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
        expect(res.headers.get('content-type')).toBe('image/webp');
        const etag = res.headers.get('etag')!;
        expect(etag).toMatch(/^".+"$/);
        expect(Buffer.from(await res.arrayBuffer())).toEqual(await t.app.storage.read(photo.thumb_filename));
        const again = await fetchFile(photo.thumb_filename, { headers: { 'if-none-match': etag } });
        expect(again.status).toBe(304);
        expect((await again.arrayBuffer()).byteLength).toBe(0);
        expect((await fetchFile(photo.thumb_filename, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
        const head = await fetchFile(photo.filename, { method: 'HEAD' });
        expect(head.status).toBe(200);
        expect(Number(head.headers.get('content-length'))).toBe((await t.app.storage.head(photo.filename))!.size);
        // A missing object of a known photo is a 404, not an error.
        await t.app.storage.delete([photo.filename]);
        expect((await fetchFile(photo.filename)).status).toBe(404);
      });

      it('gives chat images only to the conversation\'s members, never under /uploads', async () => {
        const image = await sendImage(ann, bob, `storage-${dialect}-1`);
        expect(await rawKeys()).toEqual(expect.arrayContaining([image.file, image.thumb]));
        const viaApi = await t.request(`/api/chat-image.php?message=${image.id}`, { headers: { cookie: bob.cookie } });
        expect(viaApi.status).toBe(200);
        expect(viaApi.headers.get('cache-control')).toMatch(/^private/);
        expect(Buffer.from(await viaApi.arrayBuffer())).toEqual(await t.app.storage.read(image.file));
        const thumb = await t.request(`/api/chat-image.php?message=${image.id}&size=thumb`, { headers: { cookie: ann.cookie } });
        expect(Buffer.from(await thumb.arrayBuffer())).toEqual(await t.app.storage.read(image.thumb));
        const carl = await activeMember(t, `Carl${dialect}`, { gender: 'male' });
        expect((await t.request(`/api/chat-image.php?message=${image.id}`, { headers: { cookie: carl.cookie } })).status).toBe(404);
        expect([401, 403]).toContain((await t.request(`/api/chat-image.php?message=${image.id}`)).status);
        for (const cookie of [undefined, ann.cookie, bob.cookie]) expect((await fetchFile(image.file, { cookie })).status).toBe(404);
        // Names with an inherited property as their extension are unknown types too.
        expect((await fetchFile(`photos/${ann.profileId}/x.constructor`, { cookie: ann.cookie })).status).toBe(404);
      });

      it('deletes a photo\'s objects with the photo', async () => {
        const photo = await upload(ann, '#555');
        await approve(photo);
        expect((await t.request('/api/photos.php', post(ann.cookie, { photo_id: photo.id }, 'DELETE'))).status).toBe(200);
        const keys = await rawKeys();
        expect(keys).not.toContain(photo.filename);
        expect(keys).not.toContain(photo.thumb_filename);
        expect((await fetchFile(photo.filename)).status).toBe(404);
      });

      it('keeps the photo when its objects cannot be deleted (the member sees an error, nothing changes)', async () => {
        const photo = await upload(ann, '#777');
        const real = t.app.storage.delete;
        t.app.storage.delete = async () => {
          throw new Error('store unreachable');
        };
        try {
          const res = await t.request('/api/photos.php', post(ann.cookie, { photo_id: photo.id }, 'DELETE'));
          expect(res.status).toBeGreaterThanOrEqual(500);
        } finally {
          t.app.storage.delete = real;
        }
        expect(await t.app.db.db.selectFrom('photos').select('id').where('id', '=', photo.id).executeTakeFirst()).toBeDefined();
        expect(await rawKeys()).toEqual(expect.arrayContaining([photo.filename, photo.thumb_filename]));
      });

      it('erasing an account deletes its photos and the chat images of its conversations, and nobody else\'s', async () => {
        const gone = await activeMember(t, `Gone${dialect}`, { credits: 500 });
        const photos = [await upload(gone, '#111'), await upload(gone, '#222')];
        await approve(photos[0]);
        const sent = await sendImage(gone, bob, `storage-${dialect}-2`);
        const received = await sendImage(bob, gone, `storage-${dialect}-3`);
        // An object left behind under the profile's folder (say, by a crash mid-upload) goes too.
        const stray = `photos/${gone.profileId}/stray.webp`;
        await t.app.storage.put(stray, Buffer.alloc(4, 1));
        const kept = await upload(bob, '#333');
        const keptImage = await sendImage(ann, bob, `storage-${dialect}-4`);
        const goneKeys = [...photos.flatMap((p) => [p.filename, p.thumb_filename]), sent.file, sent.thumb, received.file, received.thumb, stray];
        expect(await rawKeys()).toEqual(expect.arrayContaining(goneKeys));

        expect((await t.request('/api/delete-account.php', post(gone.cookie, { password: 'correct horse battery' }))).status).toBe(200);
        // Within the reactivation window the objects stay.
        expect(await eraseExpiredAccounts(t.app)).toBe(0);
        expect(await rawKeys()).toEqual(expect.arrayContaining(goneKeys));

        // The store cannot be reached: the erasure waits, nothing is marked erased.
        t.clock.advance(15 * DAY);
        const real = t.app.storage.delete;
        t.app.storage.delete = async () => {
          throw new Error('store unreachable');
        };
        try {
          expect(await eraseExpiredAccounts(t.app)).toBe(0);
        } finally {
          t.app.storage.delete = real;
        }
        expect((await t.app.db.db.selectFrom('users').select('erased_at').where('id', '=', gone.userId).executeTakeFirstOrThrow()).erased_at).toBeNull();

        expect(await eraseExpiredAccounts(t.app)).toBe(1);
        const keys = await rawKeys();
        for (const key of goneKeys) expect(keys).not.toContain(key);
        expect(keys).toEqual(expect.arrayContaining([kept.filename, kept.thumb_filename, keptImage.file, keptImage.thumb]));
      });
    });
  }
});
