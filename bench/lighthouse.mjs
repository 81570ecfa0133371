// Lighthouse (from npm, mobile defaults: Moto G-class emulation, simulated slow 4G and 4× CPU) driving
// Debian's Chromium — shared by bench:landers and bench:lighthouse. Scores are 0–100 as Lighthouse shows them.
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
export const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
/** Lighthouse runs per URL; the median performance run is kept (Lighthouse's own advice for variance). */
export const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);

export async function launchChromium() {
  return chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: FLAGS, logLevel: 'silent' });
}

/**
 * Audits one URL RUNS times and returns the median run: the four category scores, JavaScript bytes on the
 * wire (compressed) before any interaction, main-thread blocking time and the largest contentful paint.
 */
export async function audit(chrome, url, extraHeaders) {
  const results = [];
  for (let i = 0; i < RUNS; i++) {
    let lhr;
    // A trace Lighthouse could not record (NO_NAVSTART and the like, on a busy machine) is run again, twice at most.
    for (let attempt = 0; ; attempt++) {
      lhr = (await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES, extraHeaders })).lhr;
      if (!lhr.runtimeError) break;
      if (attempt === 2) throw new Error(`${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    }
    const scripts = lhr.audits['resource-summary']?.details?.items?.find((item) => item.resourceType === 'script');
    const score = (id) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
    results.push({
      scores: Object.fromEntries(CATEGORIES.map((id) => [id, score(id)])),
      jsBytes: scripts?.transferSize ?? 0,
      tbt: lhr.audits['total-blocking-time']?.numericValue ?? 0,
      lcp: lhr.audits['largest-contentful-paint']?.numericValue ?? 0,
      cls: lhr.audits['cumulative-layout-shift']?.numericValue ?? 0,
      failing: Object.values(lhr.audits)
        .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === 'binary' && lhr.categories.accessibility.auditRefs.concat(lhr.categories.seo.auditRefs).some((r) => r.id === a.id))
        .map((a) => a.id),
    });
  }
  results.sort((a, b) => a.scores.performance - b.scores.performance);
  return results[Math.floor(results.length / 2)];
}

/** One line per URL: the scores, JS bytes and the two timings that decide most of the score. */
export function line(label, r) {
  const s = r.scores;
  const kb = (r.jsBytes / 1024).toFixed(1);
  return `${label.padEnd(34)} perf ${String(s.performance).padStart(3)}  a11y ${String(s.accessibility).padStart(3)}  seo ${String(s.seo).padStart(3)}  best ${String(s['best-practices']).padStart(3)}  JS ${kb.padStart(5)} KB  TBT ${r.tbt.toFixed(0).padStart(4)} ms  LCP ${(r.lcp / 1000).toFixed(2)} s  CLS ${r.cls.toFixed(3)}${r.failing.length ? `  failing: ${r.failing.join(', ')}` : ''}`;
}
