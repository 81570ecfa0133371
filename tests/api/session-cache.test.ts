import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyCredits } from '../../src/server/credits/ledger';
import { findSessionMember } from '../../src/server/accounts/accounts.repository';
import { hashToken } from '../../src/server/accounts/tokens';
import { createApi } from '../../src/server/api/app';
import { type AppContext, createAppContext } from '../../src/server/app-context';
import { readConfig } from '../../src/server/config';
import { createMemoryBus, createRedisBus, type EventBus } from '../../src/server/events/bus';
import { activeMember, as, JSON_HEADERS, post } from '../helpers/members';
import { createTestApp, DIALECTS, openSecondHandle, type TestApp } from '../helpers/test-app';

// The session cache (src/server/accounts/session-cache.ts) may never answer for a session that has
// ended or a member that changed: every case below would fail if a stale entry were served.
// A long cache lifetime makes sure an expiring entry is not what saves a case.
const LONG = { SESSION_CACHE_MS: '600000' };
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

async function userOf(t: { request: TestApp['request'] }, cookie: string) {
  const res = await t.request('/api/user.php', as(cookie));
  expect(res.status).toBe(200);
  return (await res.json()).user as { id: number; credits: number; invisible: boolean; unread_messages: number } | null;
}

/** A second app instance on the same database through its own handle, sharing `bus` (or not). */
async function secondInstance(first: AppContext, bus: EventBus) {
  const handle = openSecondHandle(first.db);
  const config = readConfig({ NODE_ENV: 'test', DATA_DIR: first.config.dataDir, ...LONG });
  const app = await createAppContext(config, { db: handle, clock: first.clock, bus, logger: pino({ level: 'silent' }) });
  const api = createApi(app);
  return {
    app,
    request: (pathname: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('host', 'localhost:4321');
      return Promise.resolve(api.request(`http://localhost:4321${pathname}`, { ...init, headers }));
    },
    close: async () => {
      await handle.db.destroy();
    },
  };
}

for (const dialect of DIALECTS) {
  describe(`session cache (${dialect})`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp(dialect, LONG);
    });
    afterEach(async () => {
      await t.close();
    });

    it('serves a repeated lookup from the cache and still ends a logged-out session at once', async () => {
      const ann = await activeMember(t, 'Annika');
      expect((await userOf(t, ann.cookie))?.id).toBe(ann.userId);
      // A second read with no change in between comes from the cache (the same frozen user row).
      const first = t.app.sessions.get(...keyOf(t, ann.cookie));
      expect(first).toBeDefined();
      expect(Object.isFrozen(first?.user)).toBe(true);
      const r = await t.request('/api/logout.php', as(ann.cookie, { headers: { ...JSON_HEADERS, cookie: ann.cookie, ...SAME_ORIGIN } }));
      expect(r.status).toBe(200);
      expect(await userOf(t, ann.cookie)).toBeNull();
    });

    it('refuses every other session at once after a password change', async () => {
      const bob = await activeMember(t, 'Bobby');
      const login = await t.request('/api/user.php', post('lang=en', { email: 'bobby@example.com', password: 'correct horse battery' }));
      const other = `${login.headers.get('set-cookie')?.split(';')[0]}; lang=en`;
      expect((await userOf(t, other))?.id).toBe(bob.userId);
      expect((await userOf(t, bob.cookie))?.id).toBe(bob.userId);
      const changed = await t.request('/api/change-password.php', post(bob.cookie, { old_password: 'correct horse battery', password: 'another fine passphrase' }));
      expect(changed.status).toBe(200);
      expect(await userOf(t, other)).toBeNull();
      expect(await userOf(t, bob.cookie)).toBeNull();
    });

    it('refuses the session of a deleted account at once', async () => {
      const cy = await activeMember(t, 'Cyrus');
      expect((await userOf(t, cy.cookie))?.id).toBe(cy.userId);
      const deleted = await t.request('/api/delete-account.php', post(cy.cookie, { password: 'correct horse battery' }));
      expect(deleted.status).toBeLessThan(300);
      expect(await userOf(t, cy.cookie)).toBeNull();
    });

    it('shows changes made by other code paths at once (credits, invisible mode, a session deleted in the database)', async () => {
      const dee = await activeMember(t, 'Deena', { credits: 5 });
      expect((await userOf(t, dee.cookie))?.credits).toBe(5);
      await t.app.db.db.updateTable('users').set({ credits: 42 }).where('id', '=', dee.userId).execute();
      expect((await userOf(t, dee.cookie))?.credits).toBe(42);
      await t.app.db.db.updateTable('profiles').set({ invisible: 1 }).where('user_id', '=', dee.userId).execute();
      expect((await userOf(t, dee.cookie))?.invisible).toBe(true);
      await t.app.db.db.deleteFrom('sessions').where('user_id', '=', dee.userId).execute();
      expect(await userOf(t, dee.cookie)).toBeNull();
    });

    it('shows a ledger charge at once (on PostgreSQL the charge is a write inside the ledger row\'s WITH clause)', async () => {
      const ida = await activeMember(t, 'Idalia', { credits: 30 });
      expect((await userOf(t, ida.cookie))?.credits).toBe(30);
      await t.app.db.db.transaction().execute((trx) => applyCredits(trx, { userId: ida.userId, delta: -12, reason: 'gift', key: 'watch-test', now: t.clock.now() }));
      expect((await userOf(t, ida.cookie))?.credits).toBe(18);
    });

    it('keeps badge totals current when a message arrives', async () => {
      const eve = await activeMember(t, 'Evelyn', { credits: 50, paid: true });
      const fay = await activeMember(t, 'Faylen', { credits: 50, paid: true });
      expect((await userOf(t, fay.cookie))?.unread_messages).toBe(0);
      const sent = await t.request('/api/messages.php', post(eve.cookie, { profile_id: fay.profileId, kind: 'text', text: 'hello', client_id: 'c-00000001' }));
      expect(sent.status).toBeLessThan(300);
      expect((await userOf(t, fay.cookie))?.unread_messages).toBe(1);
    });

    it('a chat send makes only its two members\' sessions stale: a third member\'s cached session and lookup in flight stay', async () => {
      const eve = await activeMember(t, 'Evelyn', { credits: 50, paid: true });
      const fay = await activeMember(t, 'Faylen', { credits: 50, paid: true });
      const gus = await activeMember(t, 'Gustav', { credits: 50, paid: true });
      const first = await t.request('/api/messages.php', post(eve.cookie, { profile_id: fay.profileId, kind: 'text', text: 'hello', client_id: 'c-scope-1' }));
      const { conversation_id } = (await first.json()) as { conversation_id: number };
      for (const m of [eve, fay, gus]) await userOf(t, m.cookie);
      expect(t.app.sessions.get(...keyOf(t, gus.cookie))).toBeDefined();
      // Lookups that read the database before the send (the session middleware takes the ticket first).
      const ticket = t.app.sessions.ticket();
      const reads = await Promise.all([fay, gus].map(async (m) => {
        const [hash, siteId, now] = keyOf(t, m.cookie);
        return { hash, siteId, now, read: (await findSessionMember(t.app.db.db, hash, siteId, now))! };
      }));
      const sent = await t.request('/api/messages.php', post(eve.cookie, { conversation: conversation_id, kind: 'text', text: 'again', client_id: 'c-scope-2' }));
      expect(sent.status).toBe(201);
      // Its members: their entries are gone, and what was read before the send is not kept.
      expect(t.app.sessions.get(...keyOf(t, eve.cookie))).toBeUndefined();
      expect(t.app.sessions.get(...keyOf(t, fay.cookie))).toBeUndefined();
      t.app.sessions.store(reads[0].hash, reads[0].siteId, reads[0].read, ticket);
      expect(t.app.sessions.get(reads[0].hash, reads[0].siteId, reads[0].now)).toBeUndefined();
      expect((await userOf(t, fay.cookie))?.unread_messages).toBe(2);
      expect((await userOf(t, eve.cookie))?.credits).toBe(50 - 2 * 10);
      // Anyone else's: kept, and a lookup in flight is stored.
      expect(t.app.sessions.get(...keyOf(t, gus.cookie))).toBeDefined();
      t.app.sessions.store(reads[1].hash, reads[1].siteId, reads[1].read, ticket);
      expect(t.app.sessions.get(reads[1].hash, reads[1].siteId, reads[1].now)).toBe(reads[1].read);
    });

    it('never keeps a session past its end on the clock', async () => {
      const gus = await activeMember(t, 'Gustav');
      expect((await userOf(t, gus.cookie))?.id).toBe(gus.userId);
      t.clock.advance(31 * 24 * 3600_000);
      expect(await userOf(t, gus.cookie)).toBeNull();
    });

    it('a logout through one app instance ends the session in another at once when they share the bus', async () => {
      const bus = createMemoryBus();
      const a = await secondInstance(t.app, bus);
      const b = await secondInstance(t.app, bus);
      try {
        const hal = await activeMember(t, 'Halvor');
        expect((await userOf(a, hal.cookie))?.id).toBe(hal.userId);
        const r = await b.request('/api/logout.php', { headers: { ...JSON_HEADERS, cookie: hal.cookie, ...SAME_ORIGIN } });
        expect(r.status).toBe(200);
        expect(await userOf(a, hal.cookie)).toBeNull();
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('a chat send through one instance shows both members\' changes in another at once: the send\'s own publish is the invalidation, not said twice', async () => {
      const bus = createMemoryBus();
      const a = await secondInstance(t.app, bus);
      const b = await secondInstance(t.app, bus);
      let said = 0;
      const invalidate = bus.invalidate.bind(bus);
      bus.invalidate = (message) => {
        said++;
        return invalidate(message);
      };
      try {
        const eve = await activeMember(t, 'Evelyn', { credits: 50 });
        const fay = await activeMember(t, 'Faylen', { credits: 50 });
        expect((await userOf(a, eve.cookie))?.credits).toBe(50);
        expect((await userOf(a, fay.cookie))?.unread_messages).toBe(0);
        const sent = await b.request('/api/messages.php', post(eve.cookie, { profile_id: fay.profileId, kind: 'gift', gift: 'rose', client_id: 'c-announced' }));
        expect(sent.status).toBe(201);
        const { credits, conversation_id } = (await sent.json()) as { credits: number; conversation_id: number };
        expect(credits).toBeLessThan(50);
        expect((await userOf(a, eve.cookie))?.credits).toBe(credits);
        expect((await userOf(a, fay.cookie))?.unread_messages).toBe(1);
        expect(said).toBe(0);
        // Any other write of the member is still said by the session middleware.
        const read = await b.request('/api/chat-read.php', post(fay.cookie, { conversation: conversation_id }));
        expect(read.status).toBe(200);
        expect(said).toBe(1);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('without a shared bus another instance would still answer from its cache (what the bus is for)', async () => {
      const a = await secondInstance(t.app, createMemoryBus());
      const b = await secondInstance(t.app, createMemoryBus());
      try {
        const ida = await activeMember(t, 'Idalia');
        expect((await userOf(a, ida.cookie))?.id).toBe(ida.userId);
        await b.request('/api/logout.php', { headers: { ...JSON_HEADERS, cookie: ida.cookie, ...SAME_ORIGIN } });
        expect((await userOf(a, ida.cookie))?.id).toBe(ida.userId);
        await a.app.sessions.invalidate({ users: [ida.userId] });
        expect(await userOf(a, ida.cookie)).toBeNull();
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('a lookup that read the database before an invalidation does not store what it read', async () => {
      const mo = await activeMember(t, 'Moana', { credits: 7 });
      const ticket = t.app.sessions.ticket();
      const [hash, siteId, now] = keyOf(t, mo.cookie);
      const read = await findSessionMember(t.app.db.db, hash, siteId, now);
      expect(read?.user.credits).toBe(7);
      await t.app.sessions.invalidate({ users: [mo.userId] });
      t.app.sessions.store(hash, siteId, read!, ticket);
      expect(t.app.sessions.get(hash, siteId, now)).toBeUndefined();
      // A lookup that starts after the invalidation is kept.
      t.app.sessions.store(hash, siteId, read!, t.app.sessions.ticket());
      expect(t.app.sessions.get(hash, siteId, now)).toBe(read);
    });

    it.skipIf(!process.env.TEST_REDIS_URL)('a password change through one instance reaches another over Redis', async () => {
      const redis = process.env.TEST_REDIS_URL as string;
      const a = await secondInstance(t.app, createRedisBus(redis));
      const b = await secondInstance(t.app, createRedisBus(redis));
      try {
        const jo = await activeMember(t, 'Joanna');
        expect((await userOf(a, jo.cookie))?.id).toBe(jo.userId);
        const changed = await b.request('/api/change-password.php', post(jo.cookie, { old_password: 'correct horse battery', password: 'another fine passphrase' }));
        expect(changed.status).toBe(200);
        // Redis delivers to the other instance a moment later (far below the cache lifetime here).
        await expect.poll(() => userOf(a, jo.cookie), { timeout: 2000, interval: 20 }).toBeNull();
      } finally {
        await a.app.bus.close();
        await b.app.bus.close();
        await a.close();
        await b.close();
      }
    });
  });
}

/** The cache key of a session cookie: token hash and site. */
function keyOf(t: TestApp, cookie: string): [string, string, number] {
  const token = /kd_session=([^;]+)/.exec(cookie)?.[1] as string;
  return [hashToken(token), t.app.sites.defaultSite.id, t.app.clock.now()];
}
