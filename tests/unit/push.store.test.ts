import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../helpers/fake-api';

/** A browser with service workers and push: permission answers as told, subscriptions are kept. */
function fakePushBrowser(permission: NotificationPermission, answer: NotificationPermission = permission) {
  let subscription: { endpoint: string; toJSON(): unknown; unsubscribe: ReturnType<typeof vi.fn> } | null = null;
  const subscribe = vi.fn(async () => {
    subscription = {
      endpoint: 'https://fcm.googleapis.com/fcm/send/abc',
      toJSON: () => ({ endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys: { p256dh: 'BPkey', auth: 'authkey' } }),
      unsubscribe: vi.fn(async () => { subscription = null; }),
    };
    return subscription;
  });
  const registration = { pushManager: { getSubscription: async () => subscription, subscribe } };
  const listeners: ((event: MessageEvent) => void)[] = [];
  const Notification = { permission, requestPermission: vi.fn(async () => { Notification.permission = answer; return answer; }) };
  vi.stubGlobal('window', { PushManager: class {}, Notification });
  vi.stubGlobal('Notification', Notification);
  vi.stubGlobal('navigator', {
    serviceWorker: {
      ready: Promise.resolve(registration),
      getRegistration: async () => registration,
      addEventListener: (_type: string, listener: (event: MessageEvent) => void) => listeners.push(listener),
    },
  });
  vi.stubGlobal('atob', (s: string) => Buffer.from(s, 'base64').toString('binary'));
  return { subscribe, Notification, post: (data: unknown) => { for (const l of listeners) l({ data } as MessageEvent); } };
}

let api: ReturnType<typeof fakeApi>;
beforeEach(() => {
  vi.resetModules();
  api = fakeApi();
});
afterEach(() => {
  expect(api.unexpected).toEqual([]);
  vi.unstubAllGlobals();
});

describe('push store', () => {
  it('is not capable where the browser has no push', async () => {
    vi.stubGlobal('window', {});
    vi.stubGlobal('navigator', {});
    const { initPush, subscribePush } = await import('../../src/core/push/push.store');
    expect(await initPush()).toMatchObject({ isCapable: false, isSubscribed: false, permission: 'unsupported' });
    expect(await subscribePush('key')).toMatchObject({ isSubscribed: false });
    expect(api.requests).toEqual([]);
  });

  it('subscribes after permission and stores the subscription on the account', async () => {
    const browser = fakePushBrowser('default', 'granted');
    const { $push, initPush, subscribePush } = await import('../../src/core/push/push.store');
    expect(await initPush()).toMatchObject({ isCapable: true, isSubscribed: false, permission: 'default' });
    api.expectRequest('/api/user.php?push=1', 'POST').andRespond(200, { subscribed: true });
    await subscribePush('BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U');
    expect(browser.subscribe).toHaveBeenCalledOnce();
    expect($push.get()).toMatchObject({ isSubscribed: true, permission: 'granted' });
  });

  it('does nothing more when the member says no', async () => {
    const browser = fakePushBrowser('default', 'denied');
    const { subscribePush } = await import('../../src/core/push/push.store');
    expect(await subscribePush('key')).toMatchObject({ isSubscribed: false, permission: 'denied' });
    expect(browser.subscribe).not.toHaveBeenCalled();
    expect(api.requests).toEqual([]);
  });

  it('tells listeners about every push message the service worker passes on', async () => {
    const browser = fakePushBrowser('granted');
    const { $push, initPush, onPushMessage } = await import('../../src/core/push/push.store');
    await initPush();
    const seen: unknown[] = [];
    onPushMessage((data) => seen.push(data));
    browser.post({ type: 'push', data: { title: 'Ann sent you a message' } });
    browser.post({ type: 'other' });
    expect(seen).toEqual([{ title: 'Ann sent you a message' }]);
    expect($push.get().lastMessage).toEqual({ title: 'Ann sent you a message' });
  });

  it('forgets the subscription on the account and in the browser', async () => {
    fakePushBrowser('granted');
    const { $push, subscribePush, unsubscribePush } = await import('../../src/core/push/push.store');
    api.expectRequest('/api/user.php?push=1', 'POST').andRespond(200, { subscribed: true });
    await subscribePush('BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U');
    api.expectRequest('/api/user.php?push=1', 'DELETE').andRespond(200, { subscribed: false });
    await unsubscribePush();
    expect($push.get().isSubscribed).toBe(false);
    expect(api.pending()).toEqual([]);
  });
});
