import { expect, type Page, test } from '@playwright/test';
import sharp from 'sharp';
import { onHost, skipEntryWarning, tr } from './fixtures';

// Without this, Playwright's Chromium applies context.setOffline to pages only, not to the service worker's
// own fetches (read when the browser of this worker starts, which is after this file loads).
process.env.PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS = '1';

test('the service worker installs, activates and shows a push message', async ({ page, context, baseURL }) => {
  await context.grantPermissions(['notifications'], { origin: baseURL });
  await skipEntryWarning(page);
  const sw = await page.request.get('/sw.js');
  expect(sw.headers()['content-security-policy']).toContain("default-src 'self'");
  await page.goto('/');
  const state = await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const worker = registration.active;
    if (worker && worker.state !== 'activated') await new Promise((r) => worker.addEventListener('statechange', r));
    return registration.active?.state;
  });
  expect(state).toBe('activated');

  // Deliver a push as the browser's push service would, through the DevTools protocol.
  const cdp = await context.newCDPSession(page);
  // Listen before enabling: the domain reports the existing registrations while it enables.
  const registration = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const found = registrations.find((r: { scopeURL: string; isDeleted: boolean }) => r.scopeURL.startsWith(baseURL as string) && !r.isDeleted);
      if (found) resolve(found.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  const registrationId = await registration;
  const payload = JSON.stringify({ title: 'New message', body: 'Anna: hi', url: '/chats', tag: 'chat-1', badge_count: 3 });
  // Delivered again on each poll: a push that reaches a worker still starting up is dropped by the browser.
  await expect
    .poll(async () => {
      await cdp.send('ServiceWorker.deliverPushMessage', { origin: new URL(baseURL as string).origin, registrationId, data: payload });
      return page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => `${n.title}|${n.body}`));
    }, { timeout: 15_000 })
    .toContain('New message|Anna: hi');
});

/** A file as the browser on that page gets it (only the browser resolves the demo sites' *.localhost hosts). */
async function fetchInPage(page: Page, path: string) {
  const { type, bytes } = await page.evaluate(async (url) => {
    const res = await fetch(url);
    return { type: res.headers.get('content-type'), bytes: [...new Uint8Array(await res.arrayBuffer())] };
  }, path);
  return { type, body: Buffer.from(bytes) };
}

test('each site lists PNG icons (192, 512, maskable) and an apple-touch-icon in its own colours', async ({ page }) => {
  await skipEntryWarning(page);
  const colours = new Map<string, string>();
  for (const host of ['localhost', 'rijpe.localhost']) {
    await page.goto(onHost(host, '/terms'));
    await expect(page.locator('link[rel="apple-touch-icon"]')).toHaveAttribute('href', '/apple-touch-icon.png');
    const manifest = JSON.parse((await fetchInPage(page, '/manifest.webmanifest')).body.toString('utf8'));
    const pngs = (manifest.icons as { src: string; sizes: string; type: string; purpose: string }[]).filter((i) => i.type === 'image/png');
    expect(pngs.map((i) => `${i.sizes} ${i.purpose}`).sort()).toEqual(['192x192 any', '192x192 maskable', '512x512 any', '512x512 maskable']);
    for (const icon of [...pngs, { src: '/apple-touch-icon.png', sizes: '180x180' }]) {
      const { type, body } = await fetchInPage(page, icon.src);
      expect(type).toBe('image/png');
      const meta = await sharp(body).metadata();
      expect(meta.format).toBe('png');
      expect(`${meta.width}x${meta.height}`).toBe(icon.sizes);
    }
    // The maskable icon fills its square with the site's primary colour (its corner pixel).
    const { data } = await sharp((await fetchInPage(page, '/icon-maskable-192.png')).body).raw().toBuffer({ resolveWithObject: true });
    colours.set(host, [...data.subarray(0, 3)].map((c) => c.toString(16).padStart(2, '0')).join(''));
  }
  expect(colours.get('localhost')).toBe('ff7f50');
  expect(colours.get('rijpe.localhost')).toBe('e8604c');
});

test('a page opened offline shows the translated offline page, and Try again loads it once back online', async ({ page, context, baseURL }) => {
  await skipEntryWarning(page);
  await context.addCookies([{ name: 'lang', value: 'de', url: baseURL as string }]);
  await page.goto('/');
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const worker = registration.active;
    if (worker && worker.state !== 'activated') await new Promise((r) => worker.addEventListener('statechange', r));
  });
  // The worker caches the offline page while it installs; wait until it is there.
  await expect.poll(() => page.evaluate(async () => Boolean(await (await caches.open('offline-v1')).match('/offline')))).toBe(true);
  await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
  await context.setOffline(true);
  await page.goto('/login');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(tr('de', 'offline.title'));
  await expect(page.getByText(tr('de', 'offline.text'))).toBeVisible();
  // Styled like the site: its stylesheet came from the cache.
  await expect(page.getByRole('link', { name: tr('de', 'common.try_again') })).not.toHaveCSS('background-color', 'rgba(0, 0, 0, 0)');
  await context.setOffline(false);
  await page.getByRole('link', { name: tr('de', 'common.try_again') }).click();
  await expect(page.getByRole('heading', { level: 1 })).not.toHaveText(tr('de', 'offline.title'));
  await expect(page).toHaveURL(/\/login$/);
});
