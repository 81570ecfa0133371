/// <reference lib="webworker" />
// Service worker: caches hashed assets as they are used (no navigation fallback: pages need the server) and shows push messages.
import { cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<string | { url: string; revision: string | null }> };

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
self.addEventListener('install', () => void self.skipWaiting());

// Hashed assets never change: served from the cache once fetched (cache-first, filled on use).
const ASSETS_CACHE = 'assets-v1';
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || !url.pathname.startsWith('/_astro/')) return;
  event.respondWith((async () => {
    const cache = await caches.open(ASSETS_CACHE);
    const hit = await cache.match(event.request);
    if (hit) return hit;
    const response = await fetch(event.request);
    if (response.ok) await cache.put(event.request, response.clone()).catch(() => undefined);
    return response;
  })());
});
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

interface PushPayload { title?: string; body?: string; url?: string; tag?: string; badge_count?: number }

self.addEventListener('push', (event) => {
  const data: PushPayload = (() => {
    try { return event.data?.json() ?? {}; } catch { return { body: event.data?.text() }; }
  })();
  event.waitUntil((async () => {
    // Open tabs reload chats and likes on every push message (SPEC §4 refresh).
    for (const client of await self.clients.matchAll({ type: 'window' })) client.postMessage({ type: 'push', data });
    if (typeof data.badge_count === 'number' && 'setAppBadge' in self.navigator) {
      await (self.navigator as unknown as { setAppBadge(n: number): Promise<void> }).setAppBadge(data.badge_count).catch(() => undefined);
    }
    if (data.title) await self.registration.showNotification(data.title, { body: data.body, tag: data.tag, data: { url: data.url ?? '/' }, icon: '/favicon.svg' });
  })());
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL((event.notification.data as { url?: string })?.url ?? '/', self.location.origin).href;
  event.waitUntil((async () => {
    for (const client of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) {
      if (client.url === url && 'focus' in client) return void (await client.focus());
    }
    await self.clients.openWindow(url);
  })());
});
