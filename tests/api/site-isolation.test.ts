import { enrolStaff } from '../helpers/staff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

// Kindred answers on localhost, Männerhafen on gay.localhost (content/sites/*.yaml).
const KINDRED = 'localhost:4321';
const MAENNERHAFEN = 'gay.localhost:4321';
const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

interface Member { cookie: string; userId: number; profileId: number }

async function signupOn(t: TestApp, host: string, name: string): Promise<Member> {
  const res = await t.request('/api/signup.php', {
    host, method: 'POST', headers: { 'content-type': 'application/json', cookie: 'lang=en' },
    body: JSON.stringify({ email: `${name.toLowerCase()}@example.com`, name, password: 'correct horse battery', date_of_birth: '1990-05-01', gender: 'male' }),
  });
  expect(res.status).toBe(200);
  const { user } = await res.json();
  const db = t.app.db.db;
  await db.updateTable('users').set({ status: 'confirmed', paid_user: 1, credits: 500 }).where('id', '=', user.id).execute();
  await db.updateTable('profiles').set({ status: 'active', country: 'DE' }).where('user_id', '=', user.id).execute();
  return { cookie: `${res.headers.get('set-cookie')!.split(';')[0]}; lang=en`, userId: user.id, profileId: user.profile.id };
}

/** Everything a member's or staff member's request could have changed. */
async function snapshot(t: TestApp) {
  const db = t.app.db.db;
  const count = async (table: 'likes' | 'blocks' | 'reports' | 'messages' | 'conversations' | 'photos' | 'swipes' | 'sessions' | 'push_subscriptions' | 'credit_ledger' | 'payments') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return {
    likes: await count('likes'), blocks: await count('blocks'), reports: await count('reports'), messages: await count('messages'),
    conversations: await count('conversations'), photos: await count('photos'), swipes: await count('swipes'),
    sessions: await count('sessions'), push: await count('push_subscriptions'), ledger: await count('credit_ledger'), payments: await count('payments'),
    users: await db.selectFrom('users').select(['id', 'email', 'language', 'credits', 'paid_user', 'email_prefs', 'push_prefs', 'deleted_at', 'password_hash']).orderBy('id').execute(),
    profiles: await db.selectFrom('profiles').select(['id', 'name', 'invisible', 'status', 'gender', 'country']).orderBy('id').execute(),
    photoStates: await db.selectFrom('photos').select(['id', 'status', 'is_main']).orderBy('id').execute(),
    reportStates: await db.selectFrom('reports').select(['id', 'status']).orderBy('id').execute(),
  };
}

for (const dialect of DIALECTS) {
  describe(`site isolation (${dialect})`, () => {
    let t: TestApp;
    let kim: Member; // Kindred member (made staff below)
    let hans: Member; // Männerhafen member
    let otto: Member; // Männerhafen member hans talks to
    let ottoPhoto: number;
    let ottoReport: number;
    let conversation: number;

    beforeAll(async () => {
      t = await createTestApp(dialect);
      kim = await signupOn(t, KINDRED, 'KimIso');
      hans = await signupOn(t, MAENNERHAFEN, 'HansIso');
      otto = await signupOn(t, MAENNERHAFEN, 'OttoIso');
      // Kim is a Kindred admin who passed the second factor: every right, on Kindred only.
      await enrolStaff(t, kim.cookie, KINDRED, 'kimiso@example.com', 'admin');
      const up = await t.request('/api/photos.php', { host: MAENNERHAFEN, method: 'POST', headers: { cookie: otto.cookie, 'content-type': 'image/png' }, body: PNG_1PX });
      expect(up.status).toBe(201);
      ottoPhoto = (await t.app.db.db.selectFrom('photos').select('id').where('profile_id', '=', otto.profileId).executeTakeFirstOrThrow()).id;
      const sent = await t.request('/api/messages.php', {
        host: MAENNERHAFEN, method: 'POST', headers: { cookie: hans.cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ profile_id: otto.profileId, client_id: 'isolation-1', kind: 'text', text: 'Hallo Otto' }),
      });
      expect(sent.status).toBe(201);
      conversation = (await sent.json()).conversation_id;
      const report = await t.request('/api/report.php', {
        host: MAENNERHAFEN, method: 'POST', headers: { cookie: otto.cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ profile_id: hans.profileId, reason: 'spam' }),
      });
      expect(report.status).toBeLessThan(300);
      ottoReport = (await t.app.db.db.selectFrom('reports').select('id').executeTakeFirstOrThrow()).id;
    });
    afterAll(async () => { await t?.close(); });

    it('a session made on one site is no session on another site', async () => {
      const own = await (await t.request('/api/user.php', { host: KINDRED, headers: { cookie: kim.cookie } })).json();
      expect(own.user.id).toBe(kim.userId);
      const other = await (await t.request('/api/user.php', { host: MAENNERHAFEN, headers: { cookie: kim.cookie } })).json();
      expect(other).toEqual({ user: null });
    });

    it('every member and staff endpoint, called with another site\'s session, does nothing', async () => {
      const before = await snapshot(t);
      const calls: [string, string, unknown?][] = [
        ['GET', '/api/account-settings.php'], ['PUT', '/api/account-settings.php', { invisible: true, email_prefs: { like: false } }],
        ['PUT', '/api/user.php', { language: 'fr' }], ['DELETE', '/api/user.php?push=1', { endpoint: 'https://fcm.googleapis.com/x' }],
        ['POST', '/api/user.php?push=1', { subscription: { endpoint: 'https://fcm.googleapis.com/fcm/send/x', keys: { p256dh: 'x'.repeat(87), auth: 'y'.repeat(22) } } }],
        ['GET', '/api/notifications.php'], ['GET', '/api/export.php'], ['POST', '/api/resend-activation.php', {}],
        ['POST', '/api/change-password.php', { old_password: 'correct horse battery', password: 'another good horse', password_repeat: "another good horse" }],
        ['POST', '/api/mail-change.php', { email: 'new@example.com', password: 'correct horse battery' }],
        ['POST', '/api/delete-account.php', { password: 'correct horse battery' }],
        ['PATCH', '/api/profile.php', { gender: 'female' }], ['GET', '/api/my-profile.php'], ['PUT', '/api/interests.php', { interests: ['art'] }],
        ['PUT', '/api/photo-main.php', { photo_id: ottoPhoto }], ['DELETE', '/api/photos.php', { photo_id: ottoPhoto }],
        ['POST', '/api/moderation.php', { photo_id: ottoPhoto, decision: 'approve' }], ['POST', '/api/moderation.php', { report_id: ottoReport, decision: 'resolve' }],
        ['POST', '/api/like.php', { profile_id: otto.profileId }], ['POST', '/api/block.php', { profile_id: otto.profileId }],
        ['DELETE', '/api/block.php', { profile_id: otto.profileId }], ['POST', '/api/report.php', { profile_id: otto.profileId, reason: 'spam' }],
        ['GET', '/api/match-finder.php'], ['GET', '/api/swipe.php'], ['POST', '/api/swipe.php', { profile_id: otto.profileId, decision: 'like' }],
        ['GET', '/api/chats.php'], ['DELETE', '/api/chats.php', { conversation }], ['GET', `/api/chat.php?conversation=${conversation}`],
        ['GET', `/api/chat.php?profile_id=${otto.profileId}`], ['POST', '/api/chat-read.php', { conversation }],
        ['POST', '/api/messages.php', { profile_id: otto.profileId, client_id: 'isolation-x', kind: 'text', text: 'cross-site' }],
        ['POST', '/api/messages.php', { conversation, client_id: 'isolation-y', kind: 'text', text: 'cross-site' }],
        ['GET', '/api/likes.php'], ['GET', '/api/auto-like.php'], ['GET', '/api/events.php'],
        ['GET', '/api/payment-methods.php?bundle=1&country=DE'], ['POST', '/api/payments.php', { bundle: 1, method: 'ideal', country: 'NL', consent: true }],
        ['GET', '/api/payments.php?id=1'], ['GET', '/api/transactions.php'], ['GET', '/api/transactions.php?id=1'],
        ['POST', '/api/repeat-order.php', {}], ['GET', '/api/directdebit.php'], ['POST', '/api/directdebit.php?sms=1', { mobile: '+4915112345678' }],
        ['GET', '/api/time-bonus.php'],
        ['GET', '/api/admin/me.php'], ['GET', '/api/admin/members.php?q=otto'], ['GET', `/api/admin/member.php?id=${otto.userId}`],
        ['POST', '/api/admin/member-action.php', { action: 'grant_credits', user_id: otto.userId, amount: 5, reason: 'cross-site' }],
        ['POST', '/api/admin/member-action.php', { action: 'ban', user_id: otto.userId, reason: 'cross-site', confirmed: true }],
        ['GET', '/api/admin/inbox.php'], ['GET', `/api/admin/inbox-conversation.php?id=${conversation}`],
        ['POST', '/api/admin/inbox-reply.php', { conversation_id: conversation, text: 'x', client_id: 'isolation-admin' }],
        ['POST', '/api/admin/inbox-claim.php', { conversation_id: conversation }],
        ['POST', '/api/admin/inbox-notes.php', { conversation_id: conversation, notes: 'x' }],
        ['GET', '/api/admin/payments.php'], ['GET', '/api/admin/discounts.php'], ['GET', '/api/admin/audit.php'],
        ['GET', '/api/admin/stats.php?metric=signups&from=2026-11-01&to=2026-11-22'],
      ];
      for (const [method, path, body] of calls) {
        const res = await t.request(path, {
          host: MAENNERHAFEN, method,
          headers: { cookie: kim.cookie, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          body: body !== undefined ? JSON.stringify(body) : undefined,
        });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect((await res.json()).authentication_required, `${method} ${path}`).toBe(true);
      }
      // A photo upload with the wrong site's session stores nothing either.
      const upload = await t.request('/api/photos.php', { host: MAENNERHAFEN, method: 'POST', headers: { cookie: kim.cookie, 'content-type': 'image/png' }, body: PNG_1PX });
      expect(upload.status).toBe(403);
      expect(await snapshot(t)).toEqual(before);
    });

    it('on its own site, a session cannot reach another site\'s profiles, photos, reports or conversations', async () => {
      const before = await snapshot(t);
      const calls: [string, string, unknown?][] = [
        ['POST', '/api/moderation.php', { photo_id: ottoPhoto, decision: 'approve' }],
        ['POST', '/api/moderation.php', { photo_id: ottoPhoto, decision: 'reject' }],
        ['POST', '/api/moderation.php', { report_id: ottoReport, decision: 'resolve' }],
        ['POST', '/api/like.php', { profile_id: otto.profileId }], ['POST', '/api/block.php', { profile_id: otto.profileId }],
        ['POST', '/api/report.php', { profile_id: otto.profileId, reason: 'spam' }],
        ['POST', '/api/swipe.php', { profile_id: otto.profileId, decision: 'like' }],
        ['GET', `/api/member.php?id=${otto.profileId}`], ['GET', `/api/chat.php?conversation=${conversation}`],
        ['GET', `/api/chat.php?profile_id=${otto.profileId}`], ['POST', '/api/chat-read.php', { conversation }],
        ['DELETE', '/api/chats.php', { conversation }], ['PUT', '/api/photo-main.php', { photo_id: ottoPhoto }],
        ['DELETE', '/api/photos.php', { photo_id: ottoPhoto }],
        ['POST', '/api/messages.php', { profile_id: otto.profileId, client_id: 'isolation-z', kind: 'text', text: 'cross-site' }],
        ['POST', '/api/messages.php', { conversation, client_id: 'isolation-w', kind: 'text', text: 'cross-site' }],
        ['GET', `/api/admin/member.php?id=${otto.userId}`], ['GET', `/api/admin/inbox-conversation.php?id=${conversation}`],
        ['POST', '/api/admin/member-action.php', { action: 'grant_credits', user_id: otto.userId, amount: 5, reason: 'cross-site' }],
        ['POST', '/api/admin/member-action.php', { action: 'ban', user_id: otto.userId, reason: 'cross-site', confirmed: true }],
        ['POST', '/api/admin/member-action.php', { action: 'delete', user_id: hans.userId, reason: 'cross-site', confirm_name: 'Hans' }],
        ['POST', '/api/admin/inbox-reply.php', { conversation_id: conversation, text: 'x', client_id: 'isolation-admin2' }],
        ['POST', '/api/admin/inbox-claim.php', { conversation_id: conversation }],
        ['POST', '/api/admin/inbox-notes.php', { conversation_id: conversation, notes: 'x' }],
      ];
      for (const [method, path, body] of calls) {
        const res = await t.request(path, {
          host: KINDRED, method,
          headers: { cookie: kim.cookie, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          body: body !== undefined ? JSON.stringify(body) : undefined,
        });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
      expect(await snapshot(t)).toEqual(before);
      // Lists show nothing of the other site.
      const likes = await (await t.request('/api/likes.php', { host: KINDRED, headers: { cookie: kim.cookie } })).json();
      expect([...likes.likes, ...likes.liked_by].map((p: { id: number }) => p.id)).not.toContain(otto.profileId);
      const chats = await (await t.request('/api/chats.php', { host: KINDRED, headers: { cookie: kim.cookie } })).json();
      expect(chats.chats).toEqual([]);
    });

    it('a mailed link of one site does nothing on another site', async () => {
      const reset = await t.request('/api/reset-password.php', {
        host: MAENNERHAFEN, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'hansiso@example.com' }),
      });
      expect(reset.status).toBe(200);
      const mail = await t.app.db.db.selectFrom('mails').selectAll().where('to_address', '=', 'hansiso@example.com').orderBy('id', 'desc').executeTakeFirstOrThrow();
      const token = /token=([\w-]+)/.exec(mail.text)![1];
      const body = JSON.stringify({ token, password: 'brand new horse staple', password_repeat: "brand new horse staple" });
      const elsewhere = await t.request('/api/reset-password-do.php', { host: KINDRED, method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(elsewhere.status).toBeGreaterThanOrEqual(400);
      // Not used up by the attempt: it still works where it was sent from.
      const home = await t.request('/api/reset-password-do.php', { host: MAENNERHAFEN, method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(home.status).toBe(200);

      // An activation link opened on another site's host activates nothing.
      const fresh = await t.request('/api/signup.php', {
        host: MAENNERHAFEN, method: 'POST', headers: { 'content-type': 'application/json', cookie: 'lang=en' },
        body: JSON.stringify({ email: 'frischling@example.com', name: 'Frischling', password: 'correct horse battery', date_of_birth: '1990-05-01', gender: 'male' }),
      });
      expect(fresh.status).toBe(200);
      const activation = await t.app.db.db.selectFrom('mails').selectAll().where('to_address', '=', 'frischling@example.com').executeTakeFirstOrThrow();
      const link = new URL(/https?:\/\/\S+activate\.php\?token=[\w-]+/.exec(activation.text)![0]);
      await t.request(`${link.pathname}${link.search}`, { host: KINDRED, redirect: 'manual' });
      const status = async () => (await t.app.db.db.selectFrom('users').select('status').where('email', '=', 'frischling@example.com').executeTakeFirstOrThrow()).status;
      expect(await status()).toBe('not_confirmed');
      await t.request(`${link.pathname}${link.search}`, { host: MAENNERHAFEN, redirect: 'manual' });
      expect(await status()).toBe('confirmed');
    });
  });
}
