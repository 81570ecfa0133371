import { map } from 'nanostores';
import { PUSH_PATH_QUERY } from '../../shared/user.contract';
import { api, call } from '../api/client';

/** SPEC §3 Push state, plus the browser's permission (§4: not capable, not subscribed, subscribed, denied). */
export interface PushState {
  isCapable: boolean;
  isSubscribed: boolean;
  permission: NotificationPermission | 'unsupported';
  lastMessage: unknown;
}
export const $push = map<PushState>({ isCapable: false, isSubscribed: false, permission: 'unsupported', lastMessage: null });

const pushListeners = new Set<(data: unknown) => void>();
/** Called on every push message the service worker passes to open tabs (chats and likes reload). */
export function onPushMessage(listener: (data: unknown) => void): () => void {
  pushListeners.add(listener);
  return () => pushListeners.delete(listener);
}

function capable(): boolean {
  return typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

let initialised = false;
/** Reads whether this browser can and does receive pushes, and listens for push messages. */
export async function initPush(): Promise<PushState> {
  if (!capable()) return $push.get();
  $push.setKey('isCapable', true);
  $push.setKey('permission', Notification.permission);
  if (!initialised) {
    initialised = true;
    navigator.serviceWorker.addEventListener('message', (event: MessageEvent<{ type?: string; data?: unknown }>) => {
      if (event.data?.type !== 'push') return;
      $push.setKey('lastMessage', event.data.data ?? null);
      for (const listener of pushListeners) listener(event.data.data);
    });
  }
  const registration = await navigator.serviceWorker.getRegistration('/');
  const subscription = await registration?.pushManager.getSubscription().catch(() => null);
  $push.setKey('isSubscribed', Boolean(subscription) && Notification.permission === 'granted');
  return $push.get();
}

/** base64url → bytes, as PushManager.subscribe wants the VAPID key. */
function keyBytes(base64url: string): Uint8Array {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

/**
 * Asks for permission (only ever after a click), subscribes this browser with the site's VAPID key
 * and stores the subscription on the account. Resolves to the new state.
 */
export async function subscribePush(publicKey?: string): Promise<PushState> {
  if (!capable()) return $push.get();
  const key = publicKey ?? (await call(() => api.get('settings.php').json<{ push_public_key: string | null }>())).push_public_key;
  if (!key) return $push.get();
  const permission = await Notification.requestPermission();
  $push.setKey('permission', permission);
  if (permission !== 'granted') return $push.get();
  const registration = await navigator.serviceWorker.ready;
  const subscription = (await registration.pushManager.getSubscription())
    ?? (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) as BufferSource }));
  await call(() => api.post(`user.php?${PUSH_PATH_QUERY}`, { json: { subscription: subscription.toJSON() } }).json());
  $push.setKey('isSubscribed', true);
  return $push.get();
}

/** Stops pushes to this browser (the account forgets the subscription too). */
export async function unsubscribePush(): Promise<void> {
  if (!capable()) return;
  const registration = await navigator.serviceWorker.getRegistration('/');
  const subscription = await registration?.pushManager.getSubscription();
  if (subscription) {
    await call(() => api.delete(`user.php?${PUSH_PATH_QUERY}`, { json: { endpoint: subscription.endpoint } }).json()).catch(() => undefined);
    await subscription.unsubscribe().catch(() => undefined);
  }
  $push.setKey('isSubscribed', false);
}
