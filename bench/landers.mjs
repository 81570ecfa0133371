// npm run bench:landers — Lighthouse mobile scores (performance, accessibility, SEO, best practices) and
// JavaScript bytes of every lander type, from the built server on a fresh demo database, with Debian's
// Chromium. Aim per lander: performance ≥ 98, accessibility 100, SEO 100, JS ≤ 10 KB (compressed).
// LANDER_SITES=kindred.localhost,rijpe.localhost picks the sites (hosts); LIGHTHOUSE_RUNS the runs per page.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { audit, launchChromium, line, RUNS } from './lighthouse.mjs';
import { machine, port, startServer, verdict } from './lib.mjs';

const TYPES = ['tinderswipe', 'alonetonight', 'collagelanding', 'gallery', 'iconslanding', 'maplanding', 'socialnetwork', 'transitionsvideolanding', 'video'];
const SITES = (process.env.LANDER_SITES ?? 'localhost').split(',');
const AIM = { performance: 98, accessibility: 100, seo: 100, jsKB: 10 };

const APP = port(4441);
const dir = mkdtempSync(path.join(tmpdir(), 'kindred-landers-'));
const app = await startServer('dist/server-main.mjs', { PORT: String(APP), DATA_DIR: dir, SEED_PROFILES: '300', LOG_LEVEL: 'warn' }, `http://127.0.0.1:${APP}/terms`);
const chrome = await launchChromium();
console.log(machine());
console.log(`Lighthouse mobile (default throttling), median of ${RUNS} runs per lander`);
let met = true;
try {
  for (const host of SITES) {
    for (const type of TYPES) {
      const r = await audit(chrome, `http://${host}:${APP}/landers/${type}`, { cookie: 'lang=en' });
      console.log(line(`${host} /landers/${type}`, r));
      met = met && r.scores.performance >= AIM.performance && r.scores.accessibility >= AIM.accessibility && r.scores.seo >= AIM.seo && r.jsBytes <= AIM.jsKB * 1024;
    }
  }
} finally {
  await chrome.kill();
  app.kill();
}
verdict(`every lander: performance ≥ ${AIM.performance}, accessibility ${AIM.accessibility}, SEO ${AIM.seo}, JS ≤ ${AIM.jsKB} KB`, met);
