import { expect, test } from '@playwright/test';
import { skipEntryWarning } from './fixtures';

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
