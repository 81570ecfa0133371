import { chromium } from '@playwright/test';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const sites = [['localhost', 'kindred.example'], ['rijpe.localhost', 'rijpedates.example'], ['gay.localhost', 'maennerhafen.example']];
const pages = (process.env.PAGES ?? '/,/members,/chats,/likes,/profile,/settings,/notifications,/match-finder,/swipe-game,/members/5,/login,/signup,/terms').split(',');
const widths = (process.env.WIDTHS ?? '320,360,390').split(',').map(Number);
for (const [host, domain] of sites) {
  for (const loggedIn of [false, true]) {
    const ctx = await browser.newContext({ viewport: { width: 320, height: 700 }, isMobile: true, hasTouch: true });
    await ctx.addInitScript(() => localStorage.setItem('hide-entry-warning', String(Date.now())));
    const page = await ctx.newPage();
    if (loggedIn) {
      const r = await page.request.post(`http://${host}:4455/api/user.php`, { data: { email: `premium@${domain}`, password: 'kindred-demo-2026' }, headers: { 'sec-fetch-site': 'same-origin' } });
      if (!r.ok()) { console.log('login failed', host, r.status()); continue; }
    }
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 700 });
      for (const p of pages) {
        await page.goto(`http://${host}:4455${p}`, { waitUntil: 'networkidle' }).catch(() => undefined);
        const info = await page.evaluate(() => {
          const vw = document.documentElement.clientWidth;
          const wide = [...document.querySelectorAll('body *')].filter((el) => { const r = el.getBoundingClientRect(); return r.right > vw + 1 && r.width > 0 && getComputedStyle(el).position !== 'fixed'; })
            .slice(0, 4).map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}(${Math.round(el.getBoundingClientRect().right)})`);
          return { sw: document.documentElement.scrollWidth, vw, wide };
        });
        if (info.sw > info.vw) console.log(host, loggedIn ? 'in' : 'out', w, p, info.sw, info.wide.join(' '));
      }
    }
    await ctx.close();
  }
}
await browser.close();
