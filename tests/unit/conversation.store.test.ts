import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { $chats, resetChats, setInitialChats } from '../../src/core/chat/chats.store';
import {
  $conversations, $openKey, loadOlder, openConversation, receiveMessage, resetConversations, sendGift, sendText, setDraft,
  setInitialConversation,
} from '../../src/core/chat/conversation.store';
import { $user } from '../../src/core/session/store';
import { $toasts, clearToasts } from '../../src/core/toast/toast.store';
import { chat, message, OWN, user, view } from '../helpers/chat-fixtures';
import { fakeApi } from '../helpers/fake-api';

let api: ReturnType<typeof fakeApi>;
const ids = (key: string) => $conversations.get()[key]?.messages.map((m) => m.id);

beforeEach(() => {
  resetChats();
  resetConversations();
  api = fakeApi();
  vi.stubGlobal('crypto', { randomUUID: () => 'client-id-1' });
  $user.set(user({ unread_messages: 3 }));
  setInitialChats({ chats: [chat(7, 200, 2), chat(8, 300, 1)], unread_messages: 3 });
});
afterEach(() => {
  expect(api.unexpected).toEqual([]);
  expect(api.pending()).toEqual([]);
  vi.unstubAllGlobals();
});

describe('conversation store', () => {
  it('opens the server-rendered conversation and counts it read at once', () => {
    setInitialConversation(view(7, 200, [message(1, 7, 200), message(2, 7, OWN)]));
    expect($openKey.get()).toBe('7');
    expect(ids('7')).toEqual([1, 2]);
    expect($chats.get().find((c) => c.conversation.id === 7)?.num_unread_messages).toBe(0);
    expect($user.get()?.unread_messages).toBe(1);
    expect(api.requests).toEqual([]);
  });

  it('opens another conversation from the list by loading it', async () => {
    api.expectRequest('/api/chat.php?conversation=8').andRespond(200, view(8, 300, [message(5, 8, 300)]));
    await openConversation({ conversation: 8 });
    expect($openKey.get()).toBe('8');
    expect(ids('8')).toEqual([5]);
    expect($user.get()?.unread_messages).toBe(2);
  });

  it('shows the message at once, then puts the server message in its place and takes the price', async () => {
    setInitialConversation(view(7, 200, [message(1, 7, 200)]));
    setDraft('7', '  Hello there  ');
    const wait = api.expectRequest('/api/messages.php', 'POST').andWait();
    const sent = sendText('7');
    const state = $conversations.get()['7'];
    expect(state.draft).toBe('');
    expect(state.pending.map((p) => [p.kind, p.text])).toEqual([['text', 'Hello there']]);
    wait.respond(201, { message: message(9, 7, OWN, 'Hello there'), conversation_id: 7, credits: 10 });
    expect(await sent).toBe(7);
    expect($conversations.get()['7'].pending).toEqual([]);
    expect(ids('7')).toEqual([1, 9]);
    expect($user.get()?.credits).toBe(10);
    expect($chats.get()[0].last_message).toMatchObject({ text: 'Hello there', from_me: true });
  });

  it('keeps the draft and shows the refusal when credits run out', async () => {
    setInitialConversation(view(7, 200));
    setDraft('7', 'Are you there?');
    api.expectRequest('/api/messages.php', 'POST').andRespond(402, { error: 'insufficient_credits', message: 'You do not have enough credits to send this message' });
    expect(await sendText('7')).toBeNull();
    const state = $conversations.get()['7'];
    expect(state.draft).toBe('Are you there?');
    expect(state.pending).toEqual([]);
    expect(state.error).toEqual({ code: 'insufficient_credits', message: 'You do not have enough credits to send this message' });
    // A refusal is shown in the chat only: sending again would be refused again.
    expect($toasts.get()).toEqual([]);
  });

  it('after server trouble, gives the text back and offers Try again, which sends it', async () => {
    clearToasts();
    vi.stubGlobal('document', { getElementById: () => ({ dataset: { failed: 'Failed.', tryAgain: 'Try again' } }) });
    setInitialConversation(view(7, 200, [message(1, 7, 200)]));
    setDraft('7', 'Still there?');
    // 501: server trouble the client does not retry, so the test needs no timers.
    api.expectRequest('/api/messages.php', 'POST').andRespond(501, { error: 'error', message: 'Server trouble.' });
    expect(await sendText('7')).toBeNull();
    expect($conversations.get()['7'].draft).toBe('Still there?');
    const [toast] = $toasts.get();
    expect([toast.tone, toast.text, toast.action?.label]).toEqual(['error', 'Failed.', 'Try again']);

    api.expectRequest('/api/messages.php', 'POST').andRespond(201, { message: message(9, 7, OWN, 'Still there?'), conversation_id: 7, credits: 10 });
    toast.action?.run();
    await vi.waitFor(() => expect(ids('7')).toEqual([1, 9]));
    expect($conversations.get()['7'].draft).toBe('');
    expect($toasts.get()).toEqual([]);
  });

  it('creates the conversation with the first message to a profile and moves it under its id', async () => {
    setInitialConversation(view(null, 400));
    expect($openKey.get()).toBe('p400');
    setDraft('p400', 'Hi!');
    api.expectRequest('/api/messages.php', 'POST').andRespond(201, { message: message(11, 12, OWN, 'Hi!'), conversation_id: 12, credits: 10 });
    api.expectRequest('/api/chats.php').andRespond(200, { chats: [chat(12, 400), chat(7, 200)], unread_messages: 0 });
    expect(await sendText('p400')).toBe(12);
    await vi.waitFor(() => expect($chats.get().map((c) => c.conversation.id)).toEqual([12, 7]));
    expect($openKey.get()).toBe('12');
    expect($conversations.get().p400).toBeUndefined();
    expect($conversations.get()['12']).toMatchObject({ id: 12, draft: '' });
    expect(ids('12')).toEqual([11]);
  });

  it('sends a gift', async () => {
    setInitialConversation(view(7, 200));
    api.expectRequest('/api/messages.php', 'POST').andRespond(201, {
      message: { ...message(13, 7, OWN), kind: 'gift', text: null, gift: 'rose' }, conversation_id: 7, credits: 0,
    });
    await sendGift('7', 'rose');
    expect($conversations.get()['7'].messages[0]).toMatchObject({ kind: 'gift', gift: 'rose' });
    expect($user.get()?.credits).toBe(0);
  });

  it('reads a partner message at once when its conversation is open and visible, and shows it once', async () => {
    setInitialConversation(view(7, 200, [message(1, 7, 200)]));
    api.expectRequest('/api/chat-read.php', 'POST').andRespond(200, { unread_messages: 1 });
    receiveMessage(message(2, 7, 200), 2);
    receiveMessage(message(2, 7, 200), 2);
    expect(ids('7')).toEqual([1, 2]);
    await vi.waitFor(() => expect($user.get()?.unread_messages).toBe(1));
    expect($chats.get()[0]).toMatchObject({ conversation: { id: 7 }, num_unread_messages: 0 });
    expect(api.requests).toEqual(['POST /api/chat-read.php']);
  });

  it('counts a message for another conversation as unread, once', () => {
    setInitialConversation(view(7, 200));
    receiveMessage(message(3, 8, 300), 4);
    receiveMessage(message(3, 8, 300), 4);
    expect($chats.get()[0]).toMatchObject({ conversation: { id: 8 }, num_unread_messages: 2 });
    expect($user.get()?.unread_messages).toBe(4);
  });

  it('replaces the pending bubble when its own message arrives over realtime before the answer', async () => {
    setInitialConversation(view(7, 200));
    setDraft('7', 'Quick one');
    const wait = api.expectRequest('/api/messages.php', 'POST').andWait();
    const sent = sendText('7');
    receiveMessage(message(20, 7, OWN, 'Quick one'), 1);
    expect($conversations.get()['7'].pending).toEqual([]);
    expect(ids('7')).toEqual([20]);
    wait.respond(201, { message: message(20, 7, OWN, 'Quick one'), conversation_id: 7, credits: 10 });
    await sent;
    expect(ids('7')).toEqual([20]);
  });

  it('loads older messages before the first one shown', async () => {
    setInitialConversation(view(7, 200, [message(40, 7, 200), message(41, 7, OWN)], { has_more: true }));
    api.expectRequest('/api/chat.php?conversation=7&before=40').andRespond(200, view(7, 200, [message(38, 7, 200), message(39, 7, OWN)], { has_more: false }));
    await loadOlder('7');
    expect(ids('7')).toEqual([38, 39, 40, 41]);
    expect($conversations.get()['7'].has_more).toBe(false);
    await loadOlder('7');
    expect(api.requests).toHaveLength(1);
  });
});
