import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { smtpReceiver } from '../helpers/smtp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getT } from '../../src/shared/i18n';
import { createJobRunner } from '../../src/server/jobs/jobs';
import type { JobRunner } from '../../src/server/jobs/job-runner';
import { NOTICE_BATCH_MS, NOTICE_INTERVAL_MS } from '../../src/server/notifications/notifications.service';
import { hasOpenTab, PRESENCE_STALE_MS, Presence } from '../../src/server/notifications/presence';
import { unsubscribeSecret, unsubscribeToken } from '../../src/server/notifications/unsubscribe';
import { activeMember, as, JSON_HEADERS, post } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

interface Received { to: string[]; headers: string; raw: string; subject: string }

/** A real SMTP server on a free port: every mail the app sends over SMTP_URL lands in `mails`. */
async function startSmtp() {
  const mails: Received[] = [];
  const server = smtpReceiver((to, raw) => {
    // Unfold header lines (RFC 5322) so long headers read as one line.
    const headers = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
    const subjectLine = /^Subject: (.*)$/m.exec(headers)?.[1] ?? '';
    mails.push({ to, headers, raw, subject: decodeWords(subjectLine) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { mails, port: (server.server.address() as AddressInfo).port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Decodes RFC 2047 encoded words (=?UTF-8?Q?…?= / ?B?) as nodemailer writes non-ASCII subjects. */
function decodeWords(value: string): string {
  return value.replace(/=\?UTF-8\?([QB])\?([^?]*)\?=\s?/gi, (_m, enc: string, text: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), 'latin1').toString('utf8'));
}

const header = (mail: Received, name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(mail.headers)?.[1]?.trim();
const tokenOf = (mail: Received) => /[?&]t=([^>\s]+)>/.exec(header(mail, 'List-Unsubscribe') ?? '')?.[1] ?? '';

for (const dialect of DIALECTS) {
  describe(`notification mails (${dialect})`, () => {
    let t: TestApp;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let runner: JobRunner;
    type Member = Awaited<ReturnType<typeof activeMember>>;
    let ann: Member;
    let bob: Member;
    // Notification mails only (activation mails go out over SMTP too).
    const mailsTo = (m: Member) => smtp.mails.filter((mail) => mail.to.includes(`${m.name.toLowerCase()}@example.com`) && header(mail, 'List-Unsubscribe'));
    const say = async (from: Member, to: Member, text = 'Hello there') => {
      const res = await t.request('/api/messages.php', post(from.cookie, { kind: 'text', client_id: randomUUID(), text, profile_id: to.profileId }));
      expect(res.status).toBe(201);
    };
    /** Lets the batch window pass and runs what is due, as the runner in the server would. */
    const runJobs = async (ms = NOTICE_BATCH_MS) => {
      t.clock.advance(ms);
      await runner.runDue();
    };
    const prefsOf = async (m: Member) => JSON.parse((await t.app.db.db.selectFrom('users').select('email_prefs').where('id', '=', m.userId).executeTakeFirstOrThrow()).email_prefs);

    beforeAll(async () => {
      smtp = await startSmtp();
      t = await createTestApp(dialect, { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, RATE_LIMIT_FACTOR: '10' });
      runner = createJobRunner(t.app);
      ann = await activeMember(t, 'Ann', { credits: 500, paid: true });
      bob = await activeMember(t, 'Bob', { gender: 'male' });
    });
    afterAll(async () => {
      await t.close();
      await smtp.close();
    });

    it('mails an offline member once about a new conversation, in their language, with one-click unsubscribe headers', async () => {
      await t.app.db.db.updateTable('users').set({ language: 'nl' }).where('id', '=', bob.userId).execute();
      await say(ann, bob, 'Secret text 42');
      await runner.runDue();
      expect(mailsTo(bob)).toHaveLength(0); // waits for the batch window
      await runJobs();
      const [mail] = mailsTo(bob);
      expect(mailsTo(bob)).toHaveLength(1);
      const nl = getT('nl');
      expect(mail.subject).toBe(nl('mail.notify.new_conversations_subject', { actor: 'Ann', site: 'Kindred' }));
      expect(header(mail, 'List-Unsubscribe')).toMatch(/^<http:\/\/localhost:\d+\/api\/unsubscribe\.php\?t=\d+\.new_conversations\.[\w-]+>$/);
      expect(header(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
      expect(mail.raw).toContain('Content-Type: text/plain');
      expect(mail.raw).toContain('Content-Type: text/html');
      expect(mail.raw).toMatch(/color-scheme/);
      // The message text never goes into the mail.
      expect(mail.raw).not.toContain('Secret text 42');
      await t.app.db.db.updateTable('users').set({ language: 'en' }).where('id', '=', bob.userId).execute();
    });

    it('mails a new message once; a second one within the hour folds into the next mail an hour later', async () => {
      const before = mailsTo(bob).length;
      await say(ann, bob, 'Are you there?');
      await runJobs();
      expect(mailsTo(bob)).toHaveLength(before + 1);
      expect(mailsTo(bob).at(-1)?.subject).toBe('New message from Ann on Kindred');
      await say(ann, bob, 'Still there?');
      await say(ann, bob, 'Hello?');
      await runJobs();
      await runJobs(NOTICE_INTERVAL_MS / 2);
      expect(mailsTo(bob)).toHaveLength(before + 1);
      await runJobs(NOTICE_INTERVAL_MS / 2);
      expect(mailsTo(bob)).toHaveLength(before + 2);
      expect(mailsTo(bob).at(-1)?.raw).toMatch(/Unread messages waiting for you: 4/);
      // Nothing else is waiting.
      await runJobs(NOTICE_INTERVAL_MS * 2);
      expect(mailsTo(bob)).toHaveLength(before + 2);
    });

    it('sends nothing while the member has a tab open (an SSE stream), and mails again once it closes', async () => {
      const cat = await activeMember(t, 'Cat', { gender: 'male' });
      const abort = new AbortController();
      const stream = await t.request('/api/events.php', as(cat.cookie, { signal: abort.signal }));
      const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('event: ready');
      await say(ann, cat);
      await runJobs();
      await say(ann, cat, 'Second');
      await runJobs(NOTICE_INTERVAL_MS);
      expect(mailsTo(cat)).toHaveLength(0);
      abort.abort();
      await reader.cancel();
      await expect.poll(async () => (await t.app.db.db.selectFrom('member_presence').select('user_id').where('user_id', '=', cat.userId).execute()).length).toBe(0);
      await say(ann, cat, 'Third');
      await runJobs();
      expect(mailsTo(cat).map((m) => m.subject)).toEqual(['New message from Ann on Kindred']);
    });

    it('counts a tab open in another process, until that process stops refreshing it', async () => {
      const gus = await activeMember(t, 'Gus', { gender: 'male' });
      const other = new Presence(t.app.db.db, t.clock); // another app process on the same database
      await other.open(gus.userId);
      await say(ann, gus);
      await runJobs();
      expect(mailsTo(gus)).toHaveLength(0);
      // That process died without closing the stream: after the stale window the member counts as away.
      t.clock.advance(PRESENCE_STALE_MS + 1);
      expect(await hasOpenTab(t.app.db.db, gus.userId, t.clock.now())).toBe(false);
      await say(ann, gus, 'Are you there?');
      await runJobs();
      expect(mailsTo(gus).map((m) => m.subject)).toEqual(['New message from Ann on Kindred']);
      await other.stop();
    });

    it('sends nothing for a type the member switched off', async () => {
      const dan = await activeMember(t, 'Dan', { gender: 'male' });
      const res = await t.request('/api/account-settings.php', post(dan.cookie, { email_prefs: { new_conversations: false, like: false } }, 'PUT'));
      expect(res.status).toBe(200);
      await say(ann, dan);
      expect((await t.request('/api/like.php', post(ann.cookie, { profile_id: dan.profileId }))).status).toBe(200);
      await runJobs(NOTICE_INTERVAL_MS);
      expect(mailsTo(dan)).toHaveLength(0);
      // The other types still go out.
      await say(ann, dan, 'Again');
      await runJobs();
      expect(mailsTo(dan).map((m) => m.subject)).toEqual(['New message from Ann on Kindred']);
    });

    it('mails likes and matches', async () => {
      const eve = await activeMember(t, 'Eve', { gender: 'male' });
      expect((await t.request('/api/like.php', post(ann.cookie, { profile_id: eve.profileId }))).status).toBe(200);
      await runJobs();
      expect(mailsTo(eve).map((m) => m.subject)).toEqual(['Ann likes you']);
      expect(header(mailsTo(eve)[0], 'List-Unsubscribe')).toContain('.like.');
      expect((await t.request('/api/like.php', post(eve.cookie, { profile_id: ann.profileId }))).status).toBe(200);
      await runJobs();
      expect(mailsTo(ann).map((m) => m.subject)).toEqual(['Eve likes you']);
    });

    it('unsubscribes with the one-click link, without login, only that member and type', async () => {
      const mail = mailsTo(bob).find((m) => m.subject.startsWith('New message'));
      const token = tokenOf(mail as Received);
      expect(token).toMatch(/\.new_messages\./);
      const before = await prefsOf(bob);
      const annBefore = await prefsOf(ann);
      const oneClick = (tok: string, init: { host?: string; lang?: string } = {}) =>
        t.request(`/api/unsubscribe.php?t=${encodeURIComponent(tok)}`, {
          // As a mail provider or webmail posts it: a form, maybe from another origin, no session.
          method: 'POST', host: init.host, headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site', cookie: `lang=${init.lang ?? 'en'}` },
          body: 'List-Unsubscribe=One-Click',
        });
      const de = getT('de');
      // A tampered signature, a changed type or member, garbage: 400, translated, nothing changes.
      const tampered = [`${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`, token.replace('new_messages', 'like'), token.replace(/^\d+/, String(ann.userId)), 'nonsense', ''];
      for (const bad of tampered) {
        const res = await oneClick(bad, { lang: 'de' });
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({ error: 'unsubscribe_invalid', message: de('unsubscribe.invalid') });
      }
      // Another site's valid token is refused on this site, and this site's on another.
      const secret = await unsubscribeSecret(t.app.db.db);
      const foreign = await oneClick(unsubscribeToken(secret, 'rijpe-dates', bob.userId, 'new_messages'), { lang: 'de' });
      expect(foreign.status).toBe(403);
      expect(await foreign.json()).toEqual({ error: 'unsubscribe_other_site', message: de('unsubscribe.other_site') });
      expect((await oneClick(token, { host: 'rijpe.localhost' })).status).toBe(403);
      expect(await prefsOf(bob)).toEqual(before);
      // The real link: no cookie, no session; only Bob's new_messages goes off.
      const res = await oneClick(token);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true, type: 'new_messages' });
      expect(await prefsOf(bob)).toEqual({ ...before, new_messages: false });
      expect(await prefsOf(ann)).toEqual(annBefore);
      // Bob's settings say so, and no more message mails come.
      const user = (await (await t.request('/api/user.php', as(bob.cookie))).json()) as { user: { email_prefs: Record<string, boolean> } };
      expect(user.user.email_prefs).toMatchObject({ new_messages: false, new_conversations: true, like: true });
      const sent = mailsTo(bob).length;
      await say(ann, bob, 'After unsubscribing');
      await runJobs(NOTICE_INTERVAL_MS);
      expect(mailsTo(bob)).toHaveLength(sent);
      // Opening the header's URL in a browser leads to the confirmation page.
      const get = await t.request(`/api/unsubscribe.php?t=${token}`, { headers: JSON_HEADERS });
      expect(get.status).toBe(303);
      expect(get.headers.get('location')).toBe(`/unsubscribe?t=${token}`);
    });

    it('sends the daily unread reminder and the weekly update once per slot', async () => {
      const fay = await activeMember(t, 'Fay', { gender: 'male' });
      await t.app.db.db.updateTable('users').set({ email_prefs: JSON.stringify({ new_conversations: false }) }).where('id', '=', fay.userId).execute();
      await say(ann, fay, 'Unread one');
      // The day's reminder slot opens at 17:00 UTC; two runners (two processes) queue it once.
      const day = Math.floor(t.clock.now() / 86_400_000) * 86_400_000;
      t.clock.set(day + 86_400_000 + 17 * 3600_000);
      const other = createJobRunner(t.app);
      await Promise.all([runner.tick(), other.tick()]);
      await Promise.all([runner.tick(), other.tick()]);
      const reminders = mailsTo(fay).filter((m) => m.subject === 'Messages are waiting for you on Kindred');
      expect(reminders).toHaveLength(1);
      expect(reminders[0].raw).toMatch(/You still have unread messages: 1/);
      expect(header(reminders[0], 'List-Unsubscribe')).toContain('.unread_message_reminders.');
      // Weekly: new members of the site in the member's country joined this week.
      const weekly = mailsTo(fay).filter((m) => m.subject === 'New members near you on Kindred');
      expect(weekly).toHaveLength(1);
      expect(weekly[0].raw).toMatch(/new members joined near you, among them/);
      expect(header(weekly[0], 'List-Unsubscribe')).toContain('.weekly_updates.');
      await Promise.all([runner.tick(), other.tick()]);
      expect(mailsTo(fay)).toHaveLength(2);
    });
  });
}
