// Shared helpers for the benchmarks: start a child server, wait for it, run autocannon.
import { fork } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import autocannon from 'autocannon';

export const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Added to every port a bench listens on, so two people can run benches on one machine. */
export const PORT_SHIFT = Number(process.env.BENCH_PORT_SHIFT ?? 0);
export const port = (n) => n + PORT_SHIFT;

/** The machine the figures come from: CPUs and load, which other work on the box changes. */
export function machine() {
  const list = cpus();
  const load = loadavg().map((n) => n.toFixed(2)).join(' ');
  return `machine: ${list.length} × ${list[0]?.model.trim() ?? 'cpu'}, load average ${load}, node ${process.version}`;
}

/** Prints the aim and whether the figure met it (the last line of every bench). */
export function verdict(aim, met) {
  console.log(machine());
  console.log(`aim: ${aim} — ${met ? 'met' : 'NOT met'}`);
}

/** Forks a server script and resolves once `probe` (a URL) answers 2xx. */
export function startServer(script, env, probe, headers = {}) {
  return new Promise((resolve, reject) => {
    // As `npm start` runs it: the libraries' production builds, as the zero-setup demo deployment.
    const child = fork(script, [], { env: { NODE_ENV: 'production', DEPLOYMENT: 'demo', ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('error', reject);
    (async () => {
      for (let i = 0; i < 300; i++) {
        try {
          if ((await fetch(probe, { headers })).ok) return resolve(child);
        } catch {}
        await new Promise((r) => setTimeout(r, 100));
      }
      reject(new Error(`${script} did not start`));
    })();
  });
}

export function load(url, headers) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** Warms both targets, then measures them alternately twice and averages, so drift hits both alike. */
export async function compare(targetUrl, baselineUrl, headers) {
  await load(targetUrl, headers);
  await load(baselineUrl, headers);
  const runs = { target: [], baseline: [] };
  for (let round = 0; round < 2; round++) {
    runs.target.push(await load(targetUrl, headers));
    runs.baseline.push(await load(baselineUrl, headers));
  }
  const avg = (list, pick) => list.reduce((sum, r) => sum + pick(r), 0) / list.length;
  return {
    target: { rps: avg(runs.target, (r) => r.requests.average), p50: avg(runs.target, (r) => r.latency.p50), p99: avg(runs.target, (r) => r.latency.p99), errors: runs.target.reduce((n, r) => n + r.errors + r.non2xx, 0) },
    baseline: { rps: avg(runs.baseline, (r) => r.requests.average), p50: avg(runs.baseline, (r) => r.latency.p50), p99: avg(runs.baseline, (r) => r.latency.p99) },
  };
}

/** Prints both lines and the ratio; answers whether the ratio reached `target` (a number, or null for none). */
export function report(label, result, target) {
  const line = (name, r) => `${name.padEnd(28)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms`;
  console.log(line(label, result.target) + `  errors ${result.target.errors}`);
  console.log(line('bare node:http, same bytes', result.baseline));
  const ratio = result.target.rps / result.baseline.rps;
  console.log(`ratio ${ratio.toFixed(2)}${target === null ? '' : `  (aim ≥ ${target})`}`);
  return target === null ? true : ratio >= target && result.target.errors === 0;
}

/** Logs the premium demo member in on a running server; answers the session cookie (`kd_session=…`). */
export async function loginDemoMember(base) {
  const login = await fetch(`${base}/api/user.php`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'premium@kindred.example', password: 'kindred-demo-2026' }),
  });
  const session = login.headers.get('set-cookie')?.split(';')[0];
  if (!login.ok || !session) throw new Error(`login failed: ${login.status}`);
  return session;
}
