// The first click on a lander's call to action, under Lighthouse's mobile profile (Moto G-class screen, slow 4G:
// 150 ms RTT and 1.6 Mbit/s, 4× CPU slowdown), driven by Playwright: the JavaScript fetched after the click and
// the time until the signup's first step is usable (e-mail field shown, form ready to submit). Shared by bench:landers.
import { chromium } from '@playwright/test';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SLOW_4G = { offline: false, latency: 150, downloadThroughput: (1638.4 * 1024) / 8, uploadThroughput: (675 * 1024) / 8 };
const PROFILES = {
  phone: { viewport: { width: 412, height: 823 }, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true },
  desktop: { viewport: { width: 1350, height: 940 } },
};

/** Median of `runs` clicks on `url`'s call to action, on a phone (the /signup page) or a desktop (the modal). */
export async function signupAfterClick(url, kind, runs = 3) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic'] });
  const results = [];
  try {
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext({ ...PROFILES[kind], extraHTTPHeaders: { cookie: 'lang=en' } });
      await context.addInitScript(() => {
        localStorage.setItem('hide-entry-warning', String(Date.now()));
        // Timed in the page (wall clock, kept across the phone's navigation): the click, then the first frame with a usable form.
        addEventListener('click', () => sessionStorage.setItem('clickAt', String(performance.timeOrigin + performance.now())), true);
        const watch = () => {
          const email = document.querySelector('form[data-signup-ready] input[name="email"]');
          if (email && email.getClientRects().length > 0) sessionStorage.setItem('usableAt', String(performance.timeOrigin + performance.now()));
          else requestAnimationFrame(watch);
        };
        requestAnimationFrame(watch);
        addEventListener('click', () => requestAnimationFrame(watch), true);
      });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      await page.goto(url, { waitUntil: 'load' });
      await page.waitForTimeout(500);
      let jsBytes = 0;
      const scripts = new Set();
      cdp.on('Network.responseReceived', (e) => { if (e.type === 'Script') scripts.add(e.requestId); });
      cdp.on('Network.loadingFinished', (e) => { if (scripts.has(e.requestId)) jsBytes += e.encodedDataLength; });
      await page.locator('main a.lander-cta').first().click({ noWaitAfter: true });
      await page.locator('form[data-signup-ready] input[name="email"]').first().waitFor({ state: 'visible', timeout: 30_000 });
      await page.waitForFunction(() => sessionStorage.getItem('usableAt'));
      const ms = Math.round(await page.evaluate(() => Number(sessionStorage.getItem('usableAt')) - Number(sessionStorage.getItem('clickAt'))));
      // Scripts still arriving when the form became usable are counted too (they were asked for before).
      await page.waitForTimeout(300);
      results.push({ ms, jsBytes });
      await context.close();
    }
  } finally {
    await browser.close();
  }
  results.sort((a, b) => a.ms - b.ms);
  return results[Math.floor(results.length / 2)];
}
