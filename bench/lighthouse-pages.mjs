// npm run bench:lighthouse — Lighthouse mobile scores of the member side: /login as a visitor, /members
// and /members/{id} as the logged-in premium demo member, from the built server on a fresh demo database
// with Debian's Chromium. Aim (issue 12): performance ≥ 95 on each.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { audit, launchChromium, line, RUNS } from './lighthouse.mjs';
import { loginDemoMember, machine, port, startServer, verdict } from './lib.mjs';

const AIM = 95;
const APP = port(4451);
const base = `http://localhost:${APP}`;
const dir = mkdtempSync(path.join(tmpdir(), 'kindred-lh-'));
const app = await startServer('dist/server-main.mjs', { PORT: String(APP), DATA_DIR: dir, SEED_PROFILES: '300', LOG_LEVEL: 'warn' }, `${base}/terms`);
const session = await loginDemoMember(base);
const member = { cookie: `${session}; lang=en` };
const someone = (await (await fetch(`${base}/api/search.php`, { headers: member })).json()).results[0]?.id;
if (!someone) throw new Error('no profile to open');

const chrome = await launchChromium();
console.log(machine());
console.log(`Lighthouse mobile (default throttling), median of ${RUNS} runs per page`);
let met = true;
try {
  for (const [label, url, headers] of [
    ['/login (visitor)', `${base}/login`, { cookie: 'lang=en' }],
    ['/members (member)', `${base}/members`, member],
    [`/members/{id} (member)`, `${base}/members/${someone}`, member],
  ]) {
    const r = await audit(chrome, url, headers);
    console.log(line(label, r));
    met = met && r.scores.performance >= AIM;
  }
} finally {
  await chrome.kill();
  app.kill();
}
verdict(`member pages: Lighthouse mobile performance ≥ ${AIM}`, met);
