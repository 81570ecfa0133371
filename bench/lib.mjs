// Shared helpers for the benchmarks: start a child server, wait for it, run autocannon.
import { fork } from 'node:child_process';
import autocannon from 'autocannon';

export const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

/** Forks a server script and resolves once `probe` (a URL) answers 2xx. */
export function startServer(script, env, probe, headers = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(script, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
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

export function report(label, result, target) {
  const line = (name, r) => `${name.padEnd(28)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms`;
  console.log(line(label, result.target) + `  errors ${result.target.errors}`);
  console.log(line('bare node:http, same bytes', result.baseline));
  console.log(`ratio ${(result.target.rps / result.baseline.rps).toFixed(2)}  (target ≥ ${target})`);
}
