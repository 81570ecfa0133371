/// <reference lib="webworker" />
// Service worker: caches hashed assets as they are used, answers a navigation that fails offline with the
// offline page (pages themselves need the server), and shows push messages.
import { cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<string | { url: string; revision: string | null }> };

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
const ASSETS_CACHE = 'assets-v1';
const OFFLINE_CACHE = 'offline-v1';
const OFFLINE_URL = '/offline';

/** Keeps the offline page in the cache, rendered in the language the member now uses (the locale cookie). */
async function cacheOfflinePage() {
  const response = await fetch(new Request(OFFLINE_URL, { cache: 'reload', credentials: 'same-origin' }));
  if (!response.ok) return;
  // Its styles and scripts too, so it looks like the site without a network.
  const assets = [...new Set((await response.clone().text()).match(/\/_astro\/[^"'()\s]+/g) ?? [])];
  await (await caches.open(ASSETS_CACHE)).addAll(assets).catch(() => undefined);
  await (await caches.open(OFFLINE_CACHE)).put(OFFLINE_URL, response);
}

self.addEventListener('install', (event) => {
  // An offline page that fails to load must not keep the worker (and push) from installing.
  event.waitUntil(cacheOfflinePage().catch(() => undefined));
  void self.skipWaiting();
});

// Pages tell their language; when it differs from the cached offline page's, the page is fetched again.
self.addEventListener('message', (event) => {
  const data = event.data as { type?: string; locale?: string } | null;
  if (data?.type !== 'locale' || !data.locale) return;
  event.waitUntil((async () => {
    const cached = await (await caches.open(OFFLINE_CACHE)).match(OFFLINE_URL);
    if (cached?.headers.get('Content-Language') !== data.locale) await cacheOfflinePage().catch(() => undefined);
  })());
});

// A navigation that fails (no network) shows the offline page instead of the browser's error.
self.addEventListener('fetch', (event) => {
  if (event.request.mode !== 'navigate' || event.request.method !== 'GET') return;
  event.respondWith(fetch(event.request).catch(async () => {
    const offline = await (await caches.open(OFFLINE_CACHE)).match(OFFLINE_URL);
    return offline ?? Response.error();
  }));
});

// Hashed assets never change: served from the cache once fetched (cache-first, filled on use).
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
    if (data.title) await self.registration.showNotification(data.title, { body: data.body, tag: data.tag, data: { url: data.url ?? '/' }, icon: '/icon-192.png' });
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
