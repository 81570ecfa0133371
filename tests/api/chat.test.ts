import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ChatsResponse, ConversationView, LikesResponse, SendMessageResponse } from '../../src/shared/chat.contract';
import { GIFTS } from '../../src/shared/gifts';
import { cardsByIds } from '../../src/server/profiles/profiles.service';
import { JSON_HEADERS, activeMember, as, post } from '../helpers/members';
import { readEvents } from '../helpers/sse';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

// The demo site served on localhost (content/sites/kindred.yaml).
const MESSAGE_CREDITS = 10;
const PHOTO_CREDITS = 15;
const GIFT_CREDITS = 25;
const MESSAGE_LENGTH = 1000;

type Member = Awaited<ReturnType<typeof activeMember>>;

const text = (fields: { conversation?: number; profile_id?: number; text?: string; client_id?: string }) =>
  ({ kind: 'text', client_id: randomUUID(), text: 'Hello there', ...fields });

async function json<T>(res: Response | Promise<Response>): Promise<T> {
  return (await res).json() as Promise<T>;
}

for (const dialect of DIALECTS) {
  describe(`chat, credits, gifts, images and likes (${dialect})`, () => {
    let t: TestApp;
    let ann: Member;
    let bob: Member;
    let cat: Member;
    let dan: Member;
    const credits = async (m: Member) => (await t.app.db.db.selectFrom('users').select('credits').where('id', '=', m.userId).executeTakeFirstOrThrow()).credits;
    const setCredits = (m: Member, n: number) => t.app.db.db.updateTable('users').set({ credits: n }).where('id', '=', m.userId).execute();
    const messageCount = async () => Number((await t.app.db.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const send = (m: Member, body: unknown) => t.request('/api/messages.php', post(m.cookie, body));

    beforeAll(async () => {
      // Some tests send dozens of messages in a second; the per-minute limit has its own tests (limits.test.ts).
      t = await createTestApp(dialect, { RATE_LIMIT_FACTOR: '10' });
      ann = await activeMember(t, 'Ann', { credits: 100 });
      bob = await activeMember(t, 'Bob', { gender: 'male', credits: 100 });
      cat = await activeMember(t, 'Cat', { credits: 100, paid: true });
      dan = await activeMember(t, 'Dan', { gender: 'male', credits: 0 });
    });
    afterAll(() => t.close());

    it('sends a message, charges message_credits in the same step, and the partner sees it unread until opened', async () => {
      const res = await send(ann, text({ profile_id: bob.profileId, text: 'Hi Bob!' }));
      expect(res.status).toBe(201);
      const sent = await json<SendMessageResponse>(res);
      expect(sent.credits).toBe(100 - MESSAGE_CREDITS);
      expect(await credits(ann)).toBe(100 - MESSAGE_CREDITS);
      const ledger = await t.app.db.db.selectFrom('credit_ledger').selectAll().where('user_id', '=', ann.userId).where('reason', '=', 'message').execute();
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({ delta: -MESSAGE_CREDITS, balance_after: 100 - MESSAGE_CREDITS });

      // The partner's card in the list is the card search shows: with the main photo, not one under inspection.
      await t.app.db.db.insertInto('photos').values([
        { profile_id: ann.profileId, filename: 'a-main.webp', thumb_filename: 'a-main-thumb.webp', status: 'active', is_main: 1, created_at: 1 },
        { profile_id: ann.profileId, filename: 'a-new.webp', thumb_filename: 'a-new-thumb.webp', status: 'under inspection', is_main: 0, created_at: 2 },
      ]).execute();
      const bobChats = await json<ChatsResponse>(t.request('/api/chats.php', as(bob.cookie)));
      expect(bobChats.chats).toHaveLength(1);
      expect(bobChats.chats[0].profile).toEqual((await cardsByIds(t.app.db.db, [ann.profileId], t.app.clock.now()))[0]);
      expect(bobChats.chats[0].profile.thumb).toBe('a-main-thumb.webp');
      expect(bobChats.chats[0]).toMatchObject({ conversation: { id: sent.conversation_id }, profile: { id: ann.profileId }, num_unread_messages: 1 });
      expect(bobChats.chats[0].last_message).toMatchObject({ kind: 'text', text: 'Hi Bob!', from_me: false });
      expect((await json<{ user: { unread_messages: number } }>(t.request('/api/user.php', as(bob.cookie)))).user.unread_messages).toBe(1);

      const view = await json<ConversationView>(t.request(`/api/chat.php?conversation=${sent.conversation_id}`, as(bob.cookie)));
      expect(view.messages.map((m) => m.text)).toEqual(['Hi Bob!']);
      expect(view).toMatchObject({ own_profile_id: bob.profileId, blocked_reason: null, prices: { message: MESSAGE_CREDITS, photo: PHOTO_CREDITS, gift: GIFT_CREDITS }, message_price: MESSAGE_CREDITS });
      // The real price of a message, as /credits sells it: €2.49 (the 1000-credit bundle) with Bob's running 25 % time bonus.
      expect(view.minimum_cost).toEqual({ costs: 1.87, currency: 'EUR' });
      const after = await json<ChatsResponse>(t.request('/api/chats.php', as(bob.cookie)));
      expect(after.chats[0].num_unread_messages).toBe(0);
      expect(after.unread_messages).toBe(0);

      // Bob replies in the same conversation; Ann's second message reuses it.
      expect((await send(bob, text({ conversation: sent.conversation_id, text: 'Hi Ann' }))).status).toBe(201);
      const again = await json<SendMessageResponse>(send(ann, text({ profile_id: bob.profileId, text: 'How are you?' })));
      expect(again.conversation_id).toBe(sent.conversation_id);
    });

    it('refuses a send without enough credits with the spec text, storing and charging nothing', async () => {
      await setCredits(dan, MESSAGE_CREDITS - 1);
      const before = await messageCount();
      const res = await send(dan, text({ profile_id: ann.profileId }));
      expect(res.status).toBe(402);
      expect(await res.json()).toMatchObject({ error: 'insufficient_credits', message: 'You do not have enough credits to send this message' });
      expect(await messageCount()).toBe(before);
      expect(await credits(dan)).toBe(MESSAGE_CREDITS - 1);
      expect(await t.app.db.db.selectFrom('conversations').select('id').where('starter_profile_id', '=', dan.profileId).execute()).toHaveLength(0);
    });

    it('lets racing sends spend the last credits only once (balance never below zero)', async () => {
      await setCredits(dan, MESSAGE_CREDITS * 2);
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => send(dan, text({ profile_id: ann.profileId, text: `race ${i}` }))));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(2);
      expect(statuses.filter((s) => s === 402)).toHaveLength(6);
      expect(await credits(dan)).toBe(0);
      const spent = await t.app.db.db.selectFrom('credit_ledger').select('delta').where('user_id', '=', dan.userId).execute();
      expect(spent.reduce((n, r) => n + r.delta, 0)).toBe(-MESSAGE_CREDITS * 2);
    });

    it('refuses a send in an existing conversation without enough credits, writing nothing at all', async () => {
      // The message, its charge and ledger row, both sides' rows and the events are written together (one
      // statement on PostgreSQL): a balance too low leaves every one of them as it was.
      const [x, y] = [await activeMember(t, 'Pia', { credits: MESSAGE_CREDITS }), await activeMember(t, 'Quin', { gender: 'male', credits: 100 })];
      const first = await json<SendMessageResponse>(send(x, text({ profile_id: y.profileId })));
      expect(first.credits).toBe(0);
      const db = t.app.db.db;
      const snapshot = async () => ({
        messages: await messageCount(),
        ledger: (await db.selectFrom('credit_ledger').select('id').where('user_id', '=', x.userId).execute()).length,
        events: (await db.selectFrom('events').select('id').where('user_id', 'in', [x.userId, y.userId]).execute()).length,
        sides: await db.selectFrom('chat_participants').select(['profile_id', 'unread_count', 'last_message_id', 'hidden']).where('conversation_id', '=', first.conversation_id).orderBy('profile_id').execute(),
        prints: (await db.selectFrom('message_fingerprints').select('fingerprint').where('sender_profile_id', '=', x.profileId).execute()).length,
        balance: await credits(x),
      });
      const before = await snapshot();
      const res = await send(x, text({ conversation: first.conversation_id, text: 'one more long text I cannot pay for today' }));
      expect(res.status).toBe(402);
      expect(await res.json()).toMatchObject({ error: 'insufficient_credits' });
      expect(await snapshot()).toEqual(before);
    });

    it('lets racing sends in an existing conversation spend the last credits only once', async () => {
      const [x, y] = [await activeMember(t, 'Rae', { credits: 100 }), await activeMember(t, 'Sol', { gender: 'male', credits: 100 })];
      const first = await json<SendMessageResponse>(send(x, text({ profile_id: y.profileId })));
      await setCredits(x, MESSAGE_CREDITS * 3);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => send(x, text({ conversation: first.conversation_id, text: `race ${i}` }))));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(3);
      expect(statuses.filter((s) => s === 402)).toHaveLength(7);
      expect(await credits(x)).toBe(0);
      const ledger = await t.app.db.db.selectFrom('credit_ledger').select(['delta', 'idempotency_key']).where('user_id', '=', x.userId).where('reason', '=', 'message').execute();
      expect(ledger).toHaveLength(4);
      const sent = await t.app.db.db.selectFrom('messages').select('id').where('sender_profile_id', '=', x.profileId).execute();
      expect(ledger.map((l) => l.idempotency_key).sort()).toEqual(sent.map((m) => `message:${m.id}`).sort());
      // Sol's unread count moved once per message that was written.
      const side = await t.app.db.db.selectFrom('chat_participants').select('unread_count').where('profile_id', '=', y.profileId).where('conversation_id', '=', first.conversation_id).executeTakeFirstOrThrow();
      expect(side.unread_count).toBe(4);
    });

    it('logs each side\'s event as it was delivered: the message, and the unread total after it', async () => {
      const [x, y] = [await activeMember(t, 'Tia', { credits: 100 }), await activeMember(t, 'Udo', { gender: 'male', credits: 100 })];
      const first = await json<SendMessageResponse>(send(x, text({ profile_id: y.profileId })));
      const body = 'Are you coming to the "lake" tomorrow? \u00e9\u00e8 \ud83d\ude00 <b>';
      const second = await json<SendMessageResponse>(send(x, text({ conversation: first.conversation_id, text: body })));
      const logged = await t.app.db.db.selectFrom('events').select(['user_id', 'type', 'data']).where('user_id', 'in', [x.userId, y.userId])
        .where('type', '=', 'message').orderBy('id', 'desc').limit(2).execute();
      const byUser = new Map(logged.map((e) => [e.user_id, JSON.parse(e.data) as { message: ChatMessage; unread_messages: number }]));
      expect(byUser.get(x.userId)).toEqual({ type: 'message', message: second.message, unread_messages: 0 });
      expect(byUser.get(y.userId)).toEqual({ type: 'message', message: second.message, unread_messages: 2 });
      expect(second.message).toMatchObject({ text: body, conversation_id: first.conversation_id, sender_profile_id: x.profileId });
      const stored = await t.app.db.db.selectFrom('messages').selectAll().where('id', '=', second.message.id).executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ body, credits: MESSAGE_CREDITS, kind: 'text', conversation_id: first.conversation_id });
      // Its spam fingerprint was kept with it (the first, two-word greeting has none).
      const prints = await t.app.db.db.selectFrom('message_fingerprints').select(['recipient_profile_id']).where('sender_profile_id', '=', x.profileId).execute();
      expect(prints).toEqual([{ recipient_profile_id: y.profileId }]);
    });

    it('lets two members write to each other at the same moment (no deadlock)', async () => {
      const [x, y] = [await activeMember(t, 'Xia', { credits: 500 }), await activeMember(t, 'Yan', { gender: 'male', credits: 500 })];
      const first = await json<SendMessageResponse>(send(x, text({ profile_id: y.profileId })));
      const sends = Array.from({ length: 20 }, (_, i) => send(i % 2 ? x : y, text({ conversation: first.conversation_id, text: `both ${i}` })));
      const answers = await Promise.all(sends);
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
      // Both rows were counted by the one statement per send, whoever was first: Xia got Yan's 10, Yan the first and Xia's 10.
      expect((await json<ChatsResponse>(t.request('/api/chats.php', as(x.cookie)))).unread_messages).toBe(10);
      expect((await json<ChatsResponse>(t.request('/api/chats.php', as(y.cookie)))).unread_messages).toBe(11);
      // Every send was charged once, with its ledger row beside it (the balance after each is one of the answers').
      const ledger = await t.app.db.db.selectFrom('credit_ledger').select(['delta', 'balance_after']).where('user_id', '=', x.userId).where('reason', '=', 'message').execute();
      expect(ledger).toHaveLength(11);
      expect(await credits(x)).toBe(500 + ledger.reduce((n, r) => n + r.delta, 0));
      expect(Math.min(...ledger.map((r) => r.balance_after))).toBe(await credits(x));
    });

    it('lets two free members start a conversation with each other at the same moment (no deadlock)', async () => {
      // Each first message locks its sender's row for the free-conversation count, and its events' foreign keys
      // touch the other member's row: a lock that blocked those key checks deadlocked these pairs on PostgreSQL.
      for (let round = 0; round < 4; round++) {
        const [x, y] = [await activeMember(t, `Ura${round}`, { credits: 50 }), await activeMember(t, `Vic${round}`, { gender: 'male', credits: 50 })];
        const [a, b] = await Promise.all([send(x, text({ profile_id: y.profileId, text: 'hi' })), send(y, text({ profile_id: x.profileId, text: 'hey' }))]);
        expect([a.status, b.status]).toEqual([201, 201]);
        const [ma, mb] = [await json<SendMessageResponse>(a), await json<SendMessageResponse>(b)];
        expect(ma.conversation_id).toBe(mb.conversation_id);
      }
    });

    it('lets two premium members start a conversation with each other at the same moment: one conversation, both messages in it', async () => {
      // A first message makes its conversation in the same statement on PostgreSQL; the racing creator's is taken over.
      for (let round = 0; round < 4; round++) {
        const [x, y] = [await activeMember(t, `Wes${round}`, { credits: 50, paid: true }), await activeMember(t, `Xan${round}`, { gender: 'male', credits: 50, paid: true })];
        const [a, b] = await Promise.all([send(x, text({ profile_id: y.profileId, text: 'hi' })), send(y, text({ profile_id: x.profileId, text: 'hey' }))]);
        expect([a.status, b.status]).toEqual([201, 201]);
        const [ma, mb] = [await json<SendMessageResponse>(a), await json<SendMessageResponse>(b)];
        expect(ma.conversation_id).toBe(mb.conversation_id);
        expect([ma.message.conversation_id, mb.message.conversation_id]).toEqual([ma.conversation_id, ma.conversation_id]);
        const sides = await t.app.db.db.selectFrom('chat_participants').select(['profile_id', 'unread_count', 'hidden']).where('conversation_id', '=', ma.conversation_id).execute();
        expect(sides.map((r) => ({ ...r, hidden: Number(r.hidden) })).sort((p, q) => p.profile_id - q.profile_id))
          .toEqual([x.profileId, y.profileId].sort((p, q) => p - q).map((id) => ({ profile_id: id, unread_count: 1, hidden: 0 })));
        const logged = await t.app.db.db.selectFrom('events').select(['user_id', 'data']).where('user_id', 'in', [x.userId, y.userId]).where('type', '=', 'message').execute();
        expect(logged).toHaveLength(4);
        for (const e of logged) expect((JSON.parse(e.data) as { message: ChatMessage }).message.conversation_id).toBe(ma.conversation_id);
      }
    });

    it('stores and charges a retried client_id once', async () => {
      await setCredits(dan, 100);
      const body = text({ profile_id: ann.profileId, text: 'once', client_id: randomUUID() });
      const [a, b] = await Promise.all([send(dan, body), send(dan, body)]);
      expect([a.status, b.status]).toEqual([201, 201]);
      const [ma, mb] = [await json<SendMessageResponse>(a), await json<SendMessageResponse>(b)];
      expect(ma.message.id).toBe(mb.message.id);
      expect(await credits(dan)).toBe(100 - MESSAGE_CREDITS);
    });

    it('refuses bad input, unknown and other members\' conversations with 4xx and changes nothing', async () => {
      const annBob = (await json<ChatsResponse>(t.request('/api/chats.php', as(ann.cookie)))).chats.find((c) => c.profile.id === bob.profileId)!;
      const before = { messages: await messageCount(), credits: await credits(cat) };
      // Cat is not part of Ann and Bob's conversation.
      expect((await t.request(`/api/chat.php?conversation=${annBob.conversation.id}`, as(cat.cookie))).status).toBe(404);
      expect((await send(cat, text({ conversation: annBob.conversation.id }))).status).toBe(404);
      expect((await t.request('/api/chats.php', post(cat.cookie, { conversation: annBob.conversation.id }, 'DELETE'))).status).toBe(404);
      expect((await t.request('/api/chat-read.php', post(cat.cookie, { conversation: annBob.conversation.id }))).status).toBe(404);
      expect((await send(cat, text({ conversation: 999999 }))).status).toBe(404);
      expect((await send(cat, text({ profile_id: 999999 }))).status).toBe(404);
      expect((await send(cat, text({ profile_id: cat.profileId }))).status).toBe(400);
      const long = await send(cat, text({ profile_id: ann.profileId, text: 'x'.repeat(MESSAGE_LENGTH + 1) }));
      expect(long.status).toBe(400);
      expect((await long.json()).error).toBe('too_long');
      expect((await send(cat, text({ profile_id: ann.profileId, text: '   ' }))).status).toBe(400);
      expect((await send(cat, { kind: 'gift', client_id: randomUUID(), profile_id: ann.profileId, gift: 'unicorn' })).status).toBe(400);
      expect((await t.request('/api/chat.php?conversation=abc', as(cat.cookie))).status).toBe(400);
      expect((await t.request('/api/chat.php', as(cat.cookie))).status).toBe(400);
      await fc.assert(fc.asyncProperty(
        fc.record({ conversation: fc.anything(), profile_id: fc.anything(), kind: fc.anything(), text: fc.anything(), client_id: fc.anything() }, { requiredKeys: [] }),
        async (body) => {
          const res = await send(cat, body);
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
        },
      ), { numRuns: 40 });
      expect((await t.request('/api/messages.php', { method: 'POST', headers: { ...JSON_HEADERS, cookie: cat.cookie }, body: '{"kind":' })).status).toBe(400);
      expect((await t.request('/api/messages.php', { method: 'POST', headers: { ...JSON_HEADERS, cookie: cat.cookie }, body: JSON.stringify({ ...text({ profile_id: ann.profileId }), text: 'y'.repeat(2_000_000) }) })).status).toBe(413);
      // Visitors get the authentication answer.
      expect((await t.request('/api/chats.php', { headers: JSON_HEADERS })).status).toBe(403);
      expect(await messageCount()).toBe(before.messages);
      expect(await credits(cat)).toBe(before.credits);
    });

    it('lets free members start 2 conversations, premium members more', async () => {
      const free = await activeMember(t, 'Eve', { credits: 200 });
      const others = await Promise.all(['Finn', 'Gus', 'Hal'].map((n) => activeMember(t, n, { gender: 'male' })));
      expect((await send(free, text({ profile_id: others[0].profileId }))).status).toBe(201);
      expect((await send(free, text({ profile_id: others[1].profileId }))).status).toBe(201);
      const third = await send(free, text({ profile_id: others[2].profileId }));
      expect(third.status).toBe(403);
      expect(await third.json()).toMatchObject({ error: 'conversation_limit', message: 'Free members can start up to 2 conversations. Get Premium to start more.' });
      // Writing on in a started conversation is fine, and replies do not count.
      expect((await send(free, text({ profile_id: others[0].profileId }))).status).toBe(201);
      for (const other of others) expect((await send(cat, text({ profile_id: other.profileId }))).status).toBe(201);
    });

    it('holds blocks both ways on send and open', async () => {
      const conversation = (await json<ChatsResponse>(t.request('/api/chats.php', as(ann.cookie)))).chats.find((c) => c.profile.id === bob.profileId)!.conversation.id;
      expect((await t.request('/api/block.php', post(bob.cookie, { profile_id: ann.profileId }))).status).toBe(200);
      const byAnn = await send(ann, text({ conversation }));
      expect(byAnn.status).toBe(403);
      expect((await byAnn.json()).error).toBe('blocked_by');
      const open = await t.request(`/api/chat.php?conversation=${conversation}`, as(ann.cookie));
      expect(open.status).toBe(403);
      expect((await open.json()).message).toBe("You're blocked by Bob. You do not have access to this page.");
      expect((await json<ChatsResponse>(t.request('/api/chats.php', as(ann.cookie)))).chats.some((c) => c.conversation.id === conversation)).toBe(false);
      const byBob = await send(bob, text({ conversation }));
      expect(byBob.status).toBe(403);
      expect((await byBob.json()).error).toBe('blocked');
      expect((await json<ConversationView>(t.request(`/api/chat.php?conversation=${conversation}`, as(bob.cookie)))).blocked_reason).toBe('blocked');
      expect((await t.request('/api/block.php', post(bob.cookie, { profile_id: ann.profileId }, 'DELETE'))).status).toBe(200);
      expect((await send(ann, text({ conversation }))).status).toBe(201);
    });

    it('keeps invisible members from being written to first, but lets them be answered', async () => {
      const ivy = await activeMember(t, 'Ivy', { credits: 100 });
      await t.app.db.db.updateTable('profiles').set({ invisible: 1 }).where('id', '=', ivy.profileId).execute();
      const first = await send(cat, text({ profile_id: ivy.profileId }));
      expect(first.status).toBe(403);
      expect((await first.json()).error).toBe('invisible');
      const fromIvy = await json<SendMessageResponse>(send(ivy, text({ profile_id: cat.profileId })));
      expect((await send(cat, text({ conversation: fromIvy.conversation_id }))).status).toBe(201);
    });

    it('does not show an invisible member\'s card by profile id unless a conversation with them exists', async () => {
      const iris = await activeMember(t, 'Iris', { credits: 100 });
      await t.app.db.db.updateTable('profiles').set({ invisible: 1 }).where('id', '=', iris.profileId).execute();
      for (const viewer of [cat, dan]) {
        const hidden = await t.request(`/api/chat.php?profile_id=${iris.profileId}`, as(viewer.cookie));
        expect(hidden.status).toBe(404);
        expect(JSON.stringify(await hidden.json())).not.toContain('Iris');
      }
      const fromIris = await json<SendMessageResponse>(send(iris, text({ profile_id: cat.profileId })));
      const known = await json<ConversationView>(t.request(`/api/chat.php?profile_id=${iris.profileId}`, as(cat.cookie)));
      expect(known).toMatchObject({ id: fromIris.conversation_id, profile: { id: iris.profileId } });
      expect((await t.request(`/api/chat.php?profile_id=${iris.profileId}`, as(dan.cookie))).status).toBe(404);
      // Her own view of the conversation partner is unaffected.
      expect((await t.request(`/api/chat.php?profile_id=${cat.profileId}`, as(iris.cookie))).status).toBe(200);
    });

    it('does not let anyone reply to an unconfirmed member until they confirm; both sides are told', async () => {
      const uma = await activeMember(t, 'Uma', { credits: 100 });
      await t.app.db.db.updateTable('users').set({ status: 'not_confirmed' }).where('id', '=', uma.userId).execute();
      await t.app.db.db.updateTable('profiles').set({ status: 'disabled' }).where('id', '=', uma.profileId).execute();
      const sent = await json<SendMessageResponse>(send(uma, text({ profile_id: cat.profileId, text: 'hello from Uma' })));
      const umaView = await json<ConversationView>(t.request(`/api/chat.php?conversation=${sent.conversation_id}`, as(uma.cookie)));
      expect(umaView.self_unconfirmed).toBe(true);
      const catView = await json<ConversationView>(t.request(`/api/chat.php?conversation=${sent.conversation_id}`, as(cat.cookie)));
      expect(catView.blocked_reason).toBe('partner_unconfirmed');
      const reply = await send(cat, text({ conversation: sent.conversation_id }));
      expect(reply.status).toBe(403);
      expect(await reply.json()).toMatchObject({ error: 'partner_unconfirmed', message: 'Uma has not confirmed their e-mail address yet. You can reply as soon as they do.' });
      await t.app.db.db.updateTable('users').set({ status: 'confirmed' }).where('id', '=', uma.userId).execute();
      await t.app.db.db.updateTable('profiles').set({ status: 'active' }).where('id', '=', uma.profileId).execute();
      expect((await send(cat, text({ conversation: sent.conversation_id }))).status).toBe(201);
    });

    it('delivers the free signup message to the target profile; no reply until the new member confirms', async () => {
      const res = await t.request('/api/signup.php', {
        method: 'POST', headers: JSON_HEADERS,
        body: JSON.stringify({ email: 'vic@example.com', name: 'Vic', password: 'correct horse battery', date_of_birth: '1991-01-01', gender: 'male', target_profile_id: cat.profileId, signup_message: 'Hi Cat, I came for you!' }),
      });
      expect(res.status).toBe(200);
      const vic = (await res.json()).user as { credits: number };
      expect(vic.credits).toBe(0);
      const chats = await json<ChatsResponse>(t.request('/api/chats.php', as(cat.cookie)));
      const chat = chats.chats.find((c) => c.profile.name === 'Vic')!;
      expect(chat).toMatchObject({ num_unread_messages: 1, last_message: { text: 'Hi Cat, I came for you!', from_me: false } });
      expect((await json<ConversationView>(t.request(`/api/chat.php?conversation=${chat.conversation.id}`, as(cat.cookie)))).blocked_reason).toBe('partner_unconfirmed');
    });

    it('sends gifts at their catalogue price', async () => {
      const catalogue = await json<{ gifts: { id: string; credits: number; image: string }[] }>(t.request('/api/gifts.php', { headers: JSON_HEADERS }));
      expect(catalogue.gifts).toHaveLength(GIFTS.length);
      const diamond = catalogue.gifts.find((g) => g.id === 'diamond')!;
      expect(diamond.credits).toBe(GIFT_CREDITS * 10);
      await setCredits(ann, 30);
      const rose = await json<SendMessageResponse>(send(ann, { kind: 'gift', gift: 'rose', client_id: randomUUID(), profile_id: bob.profileId }));
      expect(rose.message).toMatchObject({ kind: 'gift', gift: 'rose' });
      expect(rose.credits).toBe(30 - GIFT_CREDITS);
      const tooDear = await send(ann, { kind: 'gift', gift: 'diamond', client_id: randomUUID(), profile_id: bob.profileId });
      expect(tooDear.status).toBe(402);
      expect(await credits(ann)).toBe(30 - GIFT_CREDITS);
    });

    it('sends images through the photo pipeline (metadata stripped), visible to the two members only', async () => {
      await setCredits(ann, 100);
      const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#ff7f50' } })
        .withExif({ IFD0: { Copyright: 'secret' } }).jpeg().toBuffer();
      const res = await t.request(`/api/chat-image.php?profile_id=${bob.profileId}&client_id=${randomUUID()}`, { method: 'POST', headers: { cookie: ann.cookie, 'content-type': 'image/jpeg' }, body: new Uint8Array(png) });
      expect(res.status).toBe(201);
      const sent = await json<SendMessageResponse>(res);
      expect(sent.credits).toBe(100 - PHOTO_CREDITS);
      expect(sent.message.kind).toBe('image');
      const full = await t.request(sent.message.image!.full, as(bob.cookie));
      expect(full.status).toBe(200);
      expect(full.headers.get('content-type')).toBe('image/webp');
      const meta = await sharp(Buffer.from(await full.arrayBuffer())).metadata();
      expect(meta.exif).toBeUndefined();
      expect((await t.request(sent.message.image!.thumb, as(bob.cookie))).status).toBe(200);
      expect((await t.request(sent.message.image!.full, as(cat.cookie))).status).toBe(404);
      expect((await t.request(sent.message.image!.full, { headers: JSON_HEADERS })).status).toBe(403);

      const before = { messages: await messageCount(), credits: await credits(ann) };
      const corrupt = await t.request(`/api/chat-image.php?profile_id=${bob.profileId}&client_id=${randomUUID()}`, { method: 'POST', headers: { cookie: ann.cookie, 'content-type': 'image/png' }, body: Buffer.from('not an image at all') });
      expect(corrupt.status).toBe(400);
      const wrongType = await t.request(`/api/chat-image.php?profile_id=${bob.profileId}&client_id=${randomUUID()}`, { method: 'POST', headers: { cookie: ann.cookie, 'content-type': 'text/plain' }, body: 'x' });
      expect(wrongType.status).toBe(415);
      expect((await t.request(`/api/chat-image.php?profile_id=${bob.profileId}`, { method: 'POST', headers: { cookie: ann.cookie, 'content-type': 'image/png' }, body: new Uint8Array(png) })).status).toBe(400);
      expect({ messages: await messageCount(), credits: await credits(ann) }).toEqual(before);
    });

    it('loads older history page by page', async () => {
      const kim = await activeMember(t, 'Kim', { credits: 1000, paid: true });
      let conversation = 0;
      for (let i = 0; i < 35; i++) conversation = (await json<SendMessageResponse>(send(kim, text({ profile_id: dan.profileId, text: `m${i}` })))).conversation_id;
      const first = await json<ConversationView>(t.request(`/api/chat.php?conversation=${conversation}`, as(dan.cookie)));
      expect(first.messages).toHaveLength(30);
      expect(first.has_more).toBe(true);
      expect(first.messages.at(-1)!.text).toBe('m34');
      const older = await json<ConversationView>(t.request(`/api/chat.php?conversation=${conversation}&before=${first.messages[0].id}`, as(dan.cookie)));
      expect(older.messages.map((m: ChatMessage) => m.text)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
      expect(older.has_more).toBe(false);
    });

    it('deletes a chat for one side only; unknown ids are 404', async () => {
      const chats = await json<ChatsResponse>(t.request('/api/chats.php', as(dan.cookie)));
      const target = chats.chats[0].conversation.id;
      expect((await t.request('/api/chats.php', post(dan.cookie, { conversation: target }, 'DELETE'))).status).toBe(200);
      expect((await json<ChatsResponse>(t.request('/api/chats.php', as(dan.cookie)))).chats.some((c) => c.conversation.id === target)).toBe(false);
      expect((await json<ConversationView>(t.request(`/api/chat.php?conversation=${target}`, as(dan.cookie)))).messages).toHaveLength(0);
      const partner = chats.chats[0].profile.id;
      const partnerCookie = [ann, bob, cat].find((m) => m.profileId === partner)?.cookie;
      if (partnerCookie) expect((await json<ChatsResponse>(t.request('/api/chats.php', as(partnerCookie)))).chats.some((c) => c.conversation.id === target)).toBe(true);
      expect((await t.request('/api/chats.php', post(dan.cookie, { conversation: 987654 }, 'DELETE'))).status).toBe(404);
      expect((await t.request('/api/chats.php', post(dan.cookie, { conversation: 'x' }, 'DELETE'))).status).toBe(400);
    });

    it('reports a message from the chat into the moderation queue', async () => {
      const conversation = (await json<ChatsResponse>(t.request('/api/chats.php', as(bob.cookie)))).chats.find((c) => c.profile.id === ann.profileId)!.conversation.id;
      const view = await json<ConversationView>(t.request(`/api/chat.php?conversation=${conversation}`, as(bob.cookie)));
      const annMessage = view.messages.find((m) => m.sender_profile_id === ann.profileId)!;
      const ownMessage = view.messages.find((m) => m.sender_profile_id === bob.profileId)!;
      expect((await t.request('/api/report.php', post(bob.cookie, { profile_id: ann.profileId, reason: 'spam', message_id: annMessage.id }))).status).toBe(201);
      // Not Ann's message, or not Cat's conversation: refused.
      expect((await t.request('/api/report.php', post(bob.cookie, { profile_id: ann.profileId, reason: 'spam', message_id: ownMessage.id }))).status).toBe(404);
      expect((await t.request('/api/report.php', post(cat.cookie, { profile_id: ann.profileId, reason: 'spam', message_id: annMessage.id }))).status).toBe(404);
      const report = await t.app.db.db.selectFrom('reports').selectAll().where('message_id', '=', annMessage.id).execute();
      expect(report).toHaveLength(1);
    });

    it('lists likes given newest first and received new first, then newest, with their times', async () => {
      const ida = await activeMember(t, 'Ida');
      const men = [await activeMember(t, 'Abe', { gender: 'male' }), await activeMember(t, 'Ben', { gender: 'male' }), await activeMember(t, 'Cyd', { gender: 'male' })];
      for (const man of men) {
        t.clock.advance(1000);
        expect((await t.request('/api/like.php', post(ida.cookie, { profile_id: man.profileId }))).status).toBe(200);
        t.clock.advance(1000);
        expect((await t.request('/api/like.php', post(man.cookie, { profile_id: ida.profileId }))).status).toBe(200);
      }
      // Ben's like was seen: it goes after the new ones.
      expect((await t.request(`/api/member.php?id=${men[1].profileId}`, as(ida.cookie))).status).toBe(200);
      const likes = await json<LikesResponse>(t.request('/api/likes.php', as(ida.cookie)));
      expect(likes.likes.map((p) => p.id)).toEqual([men[2].profileId, men[1].profileId, men[0].profileId]);
      expect(likes.liked_by.map((p) => [p.id, p.like_new])).toEqual([[men[2].profileId, true], [men[0].profileId, true], [men[1].profileId, false]]);
      expect(likes.liked_by.every((p) => typeof p.liked_at === 'number')).toBe(true);
      expect(likes.liked_by[0].liked_at).toBeGreaterThan(likes.liked_by[1].liked_at);
      expect(likes.matches.map((p) => p.id)).toEqual([men[2].profileId, men[0].profileId, men[1].profileId]);
      expect(likes.new_likes).toBe(2);
    });

    it('lists likes given, received (new first) and matches; opening a profile clears like_new', async () => {
      const liz = await activeMember(t, 'Liz');
      const max = await activeMember(t, 'Max', { gender: 'male' });
      const ned = await activeMember(t, 'Ned', { gender: 'male' });
      expect((await t.request('/api/like.php', post(max.cookie, { profile_id: liz.profileId }))).status).toBe(200);
      t.clock.advance(1000);
      expect((await t.request('/api/like.php', post(ned.cookie, { profile_id: liz.profileId }))).status).toBe(200);
      const like = await json<{ match: boolean }>(t.request('/api/like.php', post(liz.cookie, { profile_id: max.profileId })));
      expect(like.match).toBe(true);
      const likes = await json<LikesResponse>(t.request('/api/likes.php', as(liz.cookie)));
      expect(likes.likes.map((p) => p.id)).toEqual([max.profileId]);
      expect(likes.liked_by.map((p) => [p.id, p.like_new])).toEqual([[ned.profileId, true], [max.profileId, true]]);
      expect(likes.matches.map((p) => p.id)).toEqual([max.profileId]);
      expect(likes.new_likes).toBe(2);
      expect((await t.request(`/api/member.php?id=${ned.profileId}`, as(liz.cookie))).status).toBe(200);
      const after = await json<LikesResponse>(t.request('/api/likes.php', as(liz.cookie)));
      expect(after.liked_by.map((p) => [p.id, p.like_new])).toEqual([[max.profileId, true], [ned.profileId, false]]);
      expect((await json<{ user: { new_likes: number } }>(t.request('/api/user.php', as(liz.cookie)))).user.new_likes).toBe(1);

      // Auto-like: each real pending like once, newest first, then nothing; nothing is created.
      const likesBefore = Number((await t.app.db.db.selectFrom('likes').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const a = await json<{ profile: { id: number } | null; match: boolean }>(t.request('/api/auto-like.php', as(liz.cookie)));
      expect(a).toMatchObject({ profile: { id: ned.profileId }, match: false });
      const b = await json<{ profile: { id: number } | null; match: boolean }>(t.request('/api/auto-like.php', as(liz.cookie)));
      expect(b).toMatchObject({ profile: { id: max.profileId }, match: true });
      expect((await json<{ profile: null }>(t.request('/api/auto-like.php', as(liz.cookie)))).profile).toBeNull();
      expect(Number((await t.app.db.db.selectFrom('likes').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(likesBefore);
      expect((await t.request('/api/auto-like.php', { headers: JSON_HEADERS })).status).toBe(403);
    });

    it('streams new messages to every open tab and resumes after a reconnect with Last-Event-ID', async () => {
      const tabA = new AbortController();
      const tabB = new AbortController();
      const streamA = await t.request('/api/events.php', as(bob.cookie, { signal: tabA.signal }));
      const streamB = await t.request('/api/events.php', as(bob.cookie, { signal: tabB.signal }));
      expect(streamA.status).toBe(200);
      expect(streamA.headers.get('content-type')).toContain('text/event-stream');
      const readingA = readEvents(streamA, 1, tabA);
      const readingB = readEvents(streamB, 1, tabB);
      await new Promise((r) => setTimeout(r, 50));
      const sent = await json<SendMessageResponse>(send(ann, text({ profile_id: bob.profileId, text: 'live!' })));
      const [a, b] = await Promise.all([readingA, readingB]);
      for (const events of [a, b]) {
        expect(events[0].event).toBe('message');
        expect(events[0].data).toMatchObject({ type: 'message', message: { id: sent.message.id, text: 'live!' } });
        expect((events[0].data as { unread_messages: number }).unread_messages).toBeGreaterThan(0);
      }

      // While disconnected two more arrive; a reconnect with the last id gets exactly those, in order.
      const lastId = a[0].id;
      const m1 = await json<SendMessageResponse>(send(ann, text({ profile_id: bob.profileId, text: 'missed 1' })));
      const m2 = await json<SendMessageResponse>(send(ann, text({ profile_id: bob.profileId, text: 'missed 2' })));
      const again = new AbortController();
      const resumed = await readEvents(await t.request('/api/events.php', as(bob.cookie, { signal: again.signal, headers: { 'last-event-id': String(lastId) } })), 2, again, ['message'], (e) => e.id > lastId);
      // Everything after the last seen id, in order; a few seconds before it are replayed too
      // (commits can land out of id order) and the client drops ids it already has.
      const after = resumed.filter((e) => e.id > lastId);
      expect(after.map((e) => (e.data as { message: ChatMessage }).message.id)).toEqual([m1.message.id, m2.message.id]);
      expect(new Set(resumed.map((e) => e.id)).size).toBe(resumed.length);
      // Another member's stream never carries Bob's events.
      const other = await t.app.db.db.selectFrom('events').select('user_id').where('id', 'in', resumed.map((e) => e.id)).execute();
      expect(other.every((r) => r.user_id === bob.userId)).toBe(true);
      expect((await t.request('/api/events.php', { headers: JSON_HEADERS })).status).toBe(403);
    });

    it('streams likes and matches to the liked member', async () => {
      const oli = await activeMember(t, 'Oli');
      const pat = await activeMember(t, 'Pat', { gender: 'male' });
      const tab = new AbortController();
      const reading = readEvents(await t.request('/api/events.php', as(oli.cookie, { signal: tab.signal })), 1, tab);
      await new Promise((r) => setTimeout(r, 50));
      await t.request('/api/like.php', post(pat.cookie, { profile_id: oli.profileId }));
      const [like] = await reading;
      expect(like.data).toMatchObject({ type: 'like', profile: { id: pat.profileId }, new_likes: 1 });
      const patTab = new AbortController();
      const patReading = readEvents(await t.request('/api/events.php', as(pat.cookie, { signal: patTab.signal })), 1, patTab);
      await new Promise((r) => setTimeout(r, 50));
      await t.request('/api/like.php', post(oli.cookie, { profile_id: pat.profileId }));
      const [match] = await patReading;
      expect(match.data).toMatchObject({ type: 'match', profile: { id: oli.profileId } });
    });
  });
}
