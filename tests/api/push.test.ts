import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createPushService } from '../../src/server/push/push.service';
import { activeMember, as, post } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

/** A throwaway self-signed certificate: web-push only speaks https. */
function selfSignedCertificate() {
  const dir = mkdtempSync(path.join(tmpdir(), 'kindred-push-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`, '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  return { key: readFileSync(`${dir}/key.pem`), cert: readFileSync(`${dir}/cert.pem`) };
}

/** A stand-in for a browser push service over https: records what arrives, answers the status it is told. */
function pushService() {
  const received: { path: string; headers: IncomingMessage['headers']; bytes: number }[] = [];
  let status = 201;
  const server: Server = createServer(selfSignedCertificate(), (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, bytes: Buffer.concat(chunks).length });
      res.writeHead(status).end();
    });
  });
  return {
    received,
    answer: (code: number) => { status = code; },
    listen: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`https://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Keys as a browser's PushSubscription.toJSON() has them. */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

// The stand-in's certificate is self-signed; only this test worker trusts it.
process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';

for (const dialect of DIALECTS) {
  describe(`web push (${dialect})`, () => {
    let t: TestApp;
    const service = pushService();
    let base: string;
    beforeAll(async () => {
      t = await createTestApp(dialect);
      base = await service.listen();
    });
    afterAll(async () => {
      await t.close();
      await service.close();
    });

    it('publishes a VAPID public key in the settings, kept for every process and restart', async () => {
      const settings = (await (await t.request('/api/settings.php')).json()) as { push_public_key: string };
      expect(settings.push_public_key).toMatch(/^[A-Za-z0-9_-]{80,}$/);
      const restarted = await createPushService(t.app.db, t.app.sites, pino({ level: 'silent' }));
      expect(restarted.publicKey).toBe(settings.push_public_key);
    });

    it('stores a subscription and pushes new messages and likes to it, as the member chose', async () => {
      const ann = await activeMember(t, 'Ann', { credits: 100 });
      const bob = await activeMember(t, 'Bob', { gender: 'male' });
      const endpoint = `${base}/push/${randomUUID()}`;
      expect((await t.request('/api/user.php?push=1', post(bob.cookie, { subscription: { endpoint, keys: browserKeys() } }))).status).toBe(200);
      // Bad subscriptions and visitors are refused.
      expect((await t.request('/api/user.php?push=1', post(bob.cookie, { subscription: { endpoint: 'not a url', keys: browserKeys() } }))).status).toBe(400);
      expect((await t.request('/api/user.php?push=1', post(bob.cookie, { subscription: { endpoint } }))).status).toBe(400);
      expect((await t.request('/api/user.php?push=1', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ subscription: { endpoint, keys: browserKeys() } }) })).status).toBe(403);

      await t.request('/api/messages.php', post(ann.cookie, { kind: 'text', client_id: randomUUID(), profile_id: bob.profileId, text: 'hi' }));
      await t.app.push.idle();
      expect(service.received).toHaveLength(1);
      expect(service.received[0].headers['content-encoding']).toBe('aes128gcm');
      expect(service.received[0].headers.authorization).toMatch(/^vapid t=/);
      expect(service.received[0].bytes).toBeGreaterThan(0);

      // Switching off "like" pushes keeps likes quiet.
      await t.app.db.db.updateTable('users').set({ push_prefs: JSON.stringify({ like: false, new_messages: true, new_conversations: true }) }).where('id', '=', bob.userId).execute();
      await t.request('/api/like.php', post(ann.cookie, { profile_id: bob.profileId }));
      await t.app.push.idle();
      expect(service.received).toHaveLength(1);

      // A push service answering 410 Gone drops the subscription.
      service.answer(410);
      await t.request('/api/messages.php', post(ann.cookie, { kind: 'text', client_id: randomUUID(), profile_id: bob.profileId, text: 'again' }));
      await t.app.push.idle();
      expect(service.received).toHaveLength(2);
      expect(await t.app.db.db.selectFrom('push_subscriptions').select('id').where('user_id', '=', bob.userId).execute()).toHaveLength(0);
      service.answer(201);
    });

    it('unsubscribes one endpoint of the member only', async () => {
      const cat = await activeMember(t, 'Cat');
      const dan = await activeMember(t, 'Dan');
      const endpoint = `${base}/push/${randomUUID()}`;
      await t.request('/api/user.php?push=1', post(cat.cookie, { subscription: { endpoint, keys: browserKeys() } }));
      expect((await t.request('/api/user.php?push=1', post(dan.cookie, { endpoint }, 'DELETE'))).status).toBe(200);
      expect(await t.app.db.db.selectFrom('push_subscriptions').select('id').where('endpoint', '=', endpoint).execute()).toHaveLength(1);
      expect((await t.request('/api/user.php?push=1', post(cat.cookie, { endpoint }, 'DELETE'))).status).toBe(200);
      expect(await t.app.db.db.selectFrom('push_subscriptions').select('id').where('endpoint', '=', endpoint).execute()).toHaveLength(0);
      expect((await t.request('/api/user.php', as(cat.cookie, { method: 'DELETE' }))).status).toBe(404);
    });
  });
}
