import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationView, SendMessageResponse } from '../../src/shared/chat.contract';
import { SPAM_RECIPIENTS } from '../../src/shared/safety.contract';
import { activeMember, as, post } from '../helpers/members';
import { staffSession } from '../helpers/staff';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

type Member = Awaited<ReturnType<typeof activeMember>>;
interface QueueAccount {
  user_id: number; name: string; signals: number; kinds: Record<string, number>;
  history: { conversations_started: number; reports_against: number; paid_payments: number };
  messages: { kinds: string[]; message_id: number; text: string; context: { text: string; flagged: boolean }[] }[];
}

const WHATSAPP = 'add me on whatsapp 0612345678';

for (const dialect of DIALECTS) {
  describe(`chat safety (${dialect})`, () => {
    let t: TestApp;
    let n = 0;
    const member = (extra: Parameters<typeof activeMember>[2] = {}) => activeMember(t, `Safe${++n}x${dialect}`, { credits: 500, ...extra });
    const send = (m: Member, body: Record<string, unknown>) =>
      t.request('/api/messages.php', post(m.cookie, { kind: 'text', client_id: randomUUID(), ...body }));
    const json = async <T>(res: Response | Promise<Response>) => (await res).json() as Promise<T>;
    const queue = (cookie: string, host?: string) => json<{ accounts: QueueAccount[] }>(t.request('/api/admin/safety.php', { ...as(cookie), ...(host ? { host } : {}) }));

    beforeAll(async () => {
      t = await createTestApp(dialect, { RATE_LIMIT_FACTOR: '10' });
    });
    afterAll(() => t.close());

    it('asks the sender "Are you sure?" first, then delivers the message with its flag to the recipient only', async () => {
      const ann = await member();
      const bob = await member({ gender: 'male' });
      const refused = await send(ann, { profile_id: bob.profileId, text: WHATSAPP });
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ error: 'safety_confirm', message: expect.stringContaining('away from Kindred') });
      expect(await t.app.db.db.selectFrom('messages').select('id').where('sender_profile_id', '=', ann.profileId).execute()).toHaveLength(0);

      const sent = await json<SendMessageResponse>(send(ann, { profile_id: bob.profileId, text: WHATSAPP, confirmed: true }));
      // The sender's answer carries no flags.
      expect(sent.message.flags).toBeUndefined();
      const bobView = await json<ConversationView>(t.request(`/api/chat.php?conversation=${sent.conversation_id}`, as(bob.cookie)));
      expect(bobView.messages.map((m) => m.flags)).toEqual([['off_platform_contact']]);
      const annView = await json<ConversationView>(t.request(`/api/chat.php?conversation=${sent.conversation_id}`, as(ann.cookie)));
      expect(annView.messages.map((m) => m.flags)).toEqual([undefined]);
      // The realtime events: flagged for Bob, plain for Ann.
      const events = (m: Member) => t.app.db.db.selectFrom('events').select('data').where('user_id', '=', m.userId).where('type', '=', 'message').execute();
      expect((await events(bob)).map((e) => JSON.parse(e.data).message.flags)).toEqual([['off_platform_contact']]);
      expect((await events(ann)).map((e) => JSON.parse(e.data).message.flags)).toEqual([undefined]);
      // A plain text needs no confirmation and has no flags.
      const plain = await send(ann, { conversation: sent.conversation_id, text: 'How was your weekend?' });
      expect(plain.status).toBe(201);
    });

    it("the prompt's Report files a report with the message attached", async () => {
      const eve = await member();
      const fay = await member();
      const sent = await json<SendMessageResponse>(send(eve, { profile_id: fay.profileId, text: 'Please send me 300 euros for the plane ticket', confirmed: true }));
      const view = await json<ConversationView>(t.request(`/api/chat.php?conversation=${sent.conversation_id}`, as(fay.cookie)));
      expect(view.messages[0].flags).toEqual(['money_request']);
      const report = await t.request('/api/report.php', post(fay.cookie, { profile_id: eve.profileId, reason: 'scam', message_id: sent.message.id }));
      expect(report.status).toBe(201);
      expect(await t.app.db.db.selectFrom('reports').select(['reason', 'message_id']).where('profile_id', '=', eve.profileId).execute())
        .toEqual([{ reason: 'scam', message_id: sent.message.id }]);
    });

    it('holds near-identical texts to many members as spam until staff review them; staff of another site see nothing', async () => {
      const spammer = await member({ paid: true, credits: 5000 });
      const targets = await Promise.all(Array.from({ length: SPAM_RECIPIENTS + 1 }, () => member({ gender: 'male' })));
      const text = (name: string) => `Hello ${name}, I am an engineer on an oil platform and I would love to know you better`;
      for (const [k, target] of targets.slice(0, SPAM_RECIPIENTS).entries()) {
        expect((await send(spammer, { profile_id: target.profileId, text: text(target.name) })).status, `send ${k}`).toBe(201);
      }
      const held = await send(spammer, { profile_id: targets[SPAM_RECIPIENTS].profileId, text: text(targets[SPAM_RECIPIENTS].name) });
      expect(held.status).toBe(403);
      expect(await held.json()).toMatchObject({ error: 'spam_held', message: expect.stringContaining('review') });
      // Other texts still go out.
      expect((await send(spammer, { profile_id: targets[SPAM_RECIPIENTS].profileId, text: 'Nice photos!' })).status).toBe(201);

      const moderator = await staffSession(t, `SafeMod${dialect}`, 'moderator');
      const entry = (await queue(moderator.cookie)).accounts.find((a) => a.user_id === spammer.userId);
      expect(entry).toMatchObject({ kinds: { spam: 1 }, history: { conversations_started: SPAM_RECIPIENTS + 1, reports_against: 0, paid_payments: 0 } });
      expect(entry?.messages[0].context.find((m) => m.flagged)?.text).toContain('oil platform');

      const foreign = await staffSession(t, `SafeGay${dialect}`, 'moderator', 'gay.localhost');
      const theirs = await queue(foreign.cookie, 'gay.localhost');
      expect(theirs.accounts).toEqual([]);
      const act = await t.request('/api/admin/safety-action.php', { ...post(foreign.cookie, { user_id: spammer.userId, action: 'ban', reason: 'not mine' }), host: 'gay.localhost' });
      expect(act.status).toBe(404);
      // Operators and finance do not see the queue.
      const finance = await staffSession(t, `SafeFin${dialect}`, 'finance');
      expect((await t.request('/api/admin/safety.php', as(finance.cookie))).status).toBe(403);

      // Dismissed: the spam hold lifts, audited.
      const dismissed = await t.request('/api/admin/safety-action.php', post(moderator.cookie, { user_id: spammer.userId, action: 'dismiss', reason: 'a real engineer' }));
      expect(dismissed.status).toBe(200);
      expect((await send(spammer, { profile_id: targets[SPAM_RECIPIENTS].profileId, text: text(targets[SPAM_RECIPIENTS].name) })).status).toBe(201);
      expect((await queue(moderator.cookie)).accounts.find((a) => a.user_id === spammer.userId)).toBeUndefined();
      const logged = await t.app.db.db.selectFrom('staff_audit_log').select(['action', 'target_id']).where('action', '=', 'safety_dismiss').execute();
      expect(logged).toEqual([{ action: 'safety_dismiss', target_id: spammer.userId }]);
    });

    it('suspends from the queue (audited) and refuses bad input with a translated error', async () => {
      const scammer = await member();
      const victim = await member({ gender: 'male' });
      await send(scammer, { profile_id: victim.profileId, text: 'Buy me a gift card and send me the code', confirmed: true });
      const moderator = await staffSession(t, `SafeMod2${dialect}`, 'moderator');
      const bad = await t.request('/api/admin/safety-action.php', post(moderator.cookie, { user_id: scammer.userId, action: 'suspend', reason: 'scam' }));
      expect(bad.status).toBe(400);
      expect((await bad.json()).message).toBeTruthy();
      const ok = await t.request('/api/admin/safety-action.php', post(moderator.cookie, { user_id: scammer.userId, action: 'suspend', reason: 'gift card scam', days: 7 }));
      expect(ok.status).toBe(200);
      const user = await t.app.db.db.selectFrom('users').select('suspended_until').where('id', '=', scammer.userId).executeTakeFirstOrThrow();
      expect(Number(user.suspended_until)).toBeGreaterThan(t.clock.now());
      const actions = (await t.app.db.db.selectFrom('staff_audit_log').select('action').where('target_id', '=', scammer.userId).execute()).map((r) => r.action);
      expect(actions).toEqual(expect.arrayContaining(['suspend', 'safety_suspend']));
    });

    it('warns in the member\'s language by mail, audited', async () => {
      const linker = await member();
      const reader = await member({ gender: 'male' });
      await t.app.db.db.updateTable('users').set({ language: 'de' }).where('id', '=', linker.userId).execute();
      expect((await send(linker, { profile_id: reader.profileId, text: 'Schau auf www.meinefotos-anna.de' })).status).toBe(201);
      const moderator = await staffSession(t, `SafeMod3${dialect}`, 'moderator');
      const warned = await t.request('/api/admin/safety-action.php', post(moderator.cookie, { user_id: linker.userId, action: 'warn', reason: 'links' }));
      expect(warned.status).toBe(200);
      const mails = await t.app.db.db.selectFrom('mails').select('subject').where('to_address', '=', `${linker.name.toLowerCase()}@example.com`).execute();
      expect(mails.map((m) => m.subject)).toContain('Eine Verwarnung zu deinen Nachrichten auf Kindred');
      expect(await t.app.db.db.selectFrom('staff_audit_log').select('action').where('target_id', '=', linker.userId).execute()).toEqual([{ action: 'safety_warn' }]);
    });

    it('never flags or prompts on operator answers from fictional profiles', async () => {
      const operator = await staffSession(t, `SafeOp${dialect}`, 'operator');
      const made = await json<{ profile: { id: number } }>(t.request('/api/admin/fictional.php', post(operator.cookie, { name: 'Fenna', gender: 'female', sexuality: 'hetero', birth_date: '1985-03-03', country: 'NL' })));
      const guy = await member({ gender: 'male', paid: true });
      const first = await json<SendMessageResponse>(send(guy, { profile_id: made.profile.id, text: 'Hi Fenna, how are you?' }));
      // The operator opens (claims) the conversation first, as the console does (issue 27).
      expect((await t.request('/api/admin/inbox-claim.php', post(operator.cookie, { conversation_id: first.conversation_id }))).status).toBe(200);
      const reply = await t.request('/api/admin/inbox-reply.php', post(operator.cookie, { conversation_id: first.conversation_id, text: 'Look at www.example.com or mail me at fenna@gmail.com', client_id: 'op-safety-1' }));
      expect(reply.status).toBe(200);
      const view = await json<ConversationView>(t.request(`/api/chat.php?conversation=${first.conversation_id}`, as(guy.cookie)));
      expect(view.messages.map((m) => m.flags)).toEqual([undefined, undefined]);
      expect(await t.app.db.db.selectFrom('safety_signals').select('id').where('conversation_id', '=', first.conversation_id).execute()).toHaveLength(0);
    });

    it('prunes signals after 90 days', async () => {
      const { pruneSafety } = await import('../../src/server/safety/safety.service');
      const before = await t.app.db.db.selectFrom('safety_signals').select('id').execute();
      expect(before.length).toBeGreaterThan(0);
      await pruneSafety(t.app.db.db, t.clock.now() + 91 * 86_400_000);
      expect(await t.app.db.db.selectFrom('safety_signals').select('id').execute()).toHaveLength(0);
      expect(await t.app.db.db.selectFrom('message_fingerprints').select('sender_profile_id').execute()).toHaveLength(0);
    });
  });
}
