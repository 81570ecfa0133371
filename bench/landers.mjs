// npm run bench:landers — Lighthouse mobile scores (performance, accessibility, SEO, best practices) and
// JavaScript bytes of every lander type, from the built server on a fresh demo database, with Debian's
// Chromium. Aim per lander: performance ≥ 98, accessibility 100, SEO 100, JS ≤ 10 KB (compressed).
// Then the first click on the call to action, on a phone and a desktop under the same mobile throttling: the
// JavaScript fetched after the click and the time until the signup's first step is usable (aims: ≤ 30 KB, ≤ 1 s).
// LANDER_SITES=kindred.localhost,rijpe.localhost picks the sites (hosts); LIGHTHOUSE_RUNS the runs per page.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { audit, launchChromium, line, RUNS } from './lighthouse.mjs';
import { machine, port, startServer, verdict } from './lib.mjs';
import { signupAfterClick } from './signup-click.mjs';

const TYPES = ['tinderswipe', 'alonetonight', 'collagelanding', 'gallery', 'iconslanding', 'maplanding', 'socialnetwork', 'transitionsvideolanding', 'video'];
const SITES = (process.env.LANDER_SITES ?? 'localhost').split(',');
const AIM = { performance: 98, accessibility: 100, seo: 100, jsKB: 10, signupJsKB: 30, signupMs: 1000 };

const APP = port(4441);
const dir = mkdtempSync(path.join(tmpdir(), 'kindred-landers-'));
const app = await startServer('dist/server-main.mjs', { PORT: String(APP), DATA_DIR: dir, SEED_PROFILES: '300', LOG_LEVEL: 'warn' }, `http://127.0.0.1:${APP}/terms`);
const chrome = await launchChromium();
console.log(machine());
console.log(`Lighthouse mobile (default throttling), median of ${RUNS} runs per lander`);
let met = true;
let signupMet = true;
try {
  for (const host of SITES) {
    for (const type of TYPES) {
      const r = await audit(chrome, `http://${host}:${APP}/landers/${type}`, { cookie: 'lang=en' });
      console.log(line(`${host} /landers/${type}`, r));
      met = met && r.scores.performance >= AIM.performance && r.scores.accessibility >= AIM.accessibility && r.scores.seo >= AIM.seo && r.jsBytes <= AIM.jsKB * 1024;
    }
  }
  await chrome.kill();
  console.log('First click on the call to action (slow 4G, 4× CPU), median of 3: JS fetched after the click, time to a usable signup form');
  for (const host of SITES) {
    for (const kind of ['phone', 'desktop']) {
      // ?network= : an invitation-only site offers signup to ad visitors only.
      const r = await signupAfterClick(`http://${host}:${APP}/landers/gallery?network=bench`, kind);
      console.log(`${`${host} /landers/gallery → signup (${kind})`.padEnd(50)} JS ${(r.jsBytes / 1024).toFixed(1).padStart(5)} KB  usable after ${String(r.ms).padStart(4)} ms`);
      signupMet = signupMet && r.jsBytes <= AIM.signupJsKB * 1024 && r.ms <= AIM.signupMs;
    }
  }
} finally {
  await Promise.resolve().then(() => chrome.kill()).catch(() => undefined);
  app.kill();
}
verdict(`every lander: performance ≥ ${AIM.performance}, accessibility ${AIM.accessibility}, SEO ${AIM.seo}, JS ≤ ${AIM.jsKB} KB`, met);
verdict(`signup after the first click: JS ≤ ${AIM.signupJsKB} KB, usable within ${AIM.signupMs} ms`, signupMet);
