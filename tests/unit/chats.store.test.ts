import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { $chats, $chatsStatus, deleteChat, loadChats, resetChats, setInitialChats } from '../../src/core/chat/chats.store';
import { $user } from '../../src/core/session/store';
import { chat, user } from '../helpers/chat-fixtures';
import { fakeApi } from '../helpers/fake-api';

let api: ReturnType<typeof fakeApi>;
beforeEach(() => {
  resetChats();
  api = fakeApi();
  $user.set(user());
});
afterEach(() => {
  expect(api.unexpected).toEqual([]);
  expect(api.pending()).toEqual([]);
  vi.unstubAllGlobals();
});

describe('chats store', () => {
  it('shows progress on the first load only', async () => {
    const first = api.expectRequest('/api/chats.php').andWait();
    const loading = loadChats();
    expect($chatsStatus.get()).toBe('loading');
    first.respond(200, { chats: [chat(7, 200, 2)], unread_messages: 2 });
    await loading;
    expect($chatsStatus.get()).toBe('ready');
    expect($user.get()?.unread_messages).toBe(2);

    const again = api.expectRequest('/api/chats.php').andWait();
    const refreshing = loadChats();
    expect($chatsStatus.get()).toBe('ready');
    again.respond(200, { chats: [], unread_messages: 0 });
    await refreshing;
    expect($chats.get()).toEqual([]);
  });

  it('shares one request between callers', async () => {
    api.expectRequest('/api/chats.php').andRespond(200, { chats: [], unread_messages: 0 });
    await Promise.all([loadChats(), loadChats()]);
    expect(api.requests).toEqual(['GET /api/chats.php']);
  });

  it('a fresh load asked for while a list is on its way gets one more after it (a new chat may be newer than that list)', async () => {
    const first = api.expectRequest('/api/chats.php').andWait();
    const running = loadChats();
    const fresh = [loadChats({ fresh: true }), loadChats({ fresh: true }), loadChats()];
    const second = api.expectRequest('/api/chats.php').andWait();
    first.respond(200, { chats: [], unread_messages: 0 });
    await running;
    await vi.waitFor(() => expect(api.requests).toHaveLength(2));
    second.respond(200, { chats: [chat(9, 400, 1)], unread_messages: 1 });
    await Promise.all(fresh);
    expect($chats.get().map((c) => c.conversation.id)).toEqual([9]);
    expect(api.requests).toEqual(['GET /api/chats.php', 'GET /api/chats.php']);
  });

  it('removes a chat at once, then tells the server', async () => {
    setInitialChats({ chats: [chat(7, 200, 1), chat(8, 300)], unread_messages: 1 });
    const wait = api.expectRequest('/api/chats.php', 'DELETE').andWait();
    const deleting = deleteChat(7, 'Try later');
    expect($chats.get().map((c) => c.conversation.id)).toEqual([8]);
    expect($user.get()?.unread_messages).toBe(0);
    wait.respond(200, { deleted: true });
    expect(await deleting).toBe(true);
  });

  it('alerts the error and reloads the list when the server refuses', async () => {
    const alert = vi.fn();
    vi.stubGlobal('alert', alert);
    setInitialChats({ chats: [chat(7, 200), chat(8, 300)], unread_messages: 0 });
    api.expectRequest('/api/chats.php', 'DELETE').andRespond(404, { error: 'not_found', message: 'This page could not be found' });
    api.expectRequest('/api/chats.php').andRespond(200, { chats: [chat(7, 200), chat(8, 300)], unread_messages: 0 });
    expect(await deleteChat(7, 'Try later')).toBe(false);
    expect(alert).toHaveBeenCalledWith('This page could not be found');
    expect($chats.get().map((c) => c.conversation.id)).toEqual([7, 8]);
  });
});
