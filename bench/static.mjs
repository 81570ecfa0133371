// npm run bench:static — requests/s for /terms (unprefixed, locale from the cookie) through the
// real server, beside a bare node:http server returning the same bytes, measured in one run.
import { fork } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const REQUEST_HEADERS = { cookie: 'lang=de', 'accept-encoding': 'br, gzip' };
const dir = mkdtempSync(path.join(tmpdir(), 'kindred-bench-'));

function start(script, env) {
  return new Promise((resolve, reject) => {
    const child = fork(script, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('error', reject);
    const port = env.PORT;
    const poll = async () => {
      for (let i = 0; i < 200; i++) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/terms`, { headers: REQUEST_HEADERS });
          if (res.ok) return resolve(child);
        } catch {}
        await new Promise((r) => setTimeout(r, 100));
      }
      reject(new Error(`${script} did not start`));
    };
    poll();
  });
}

function run(url) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers: REQUEST_HEADERS }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

const app = await start('dist/server-main.mjs', { PORT: '4411', HOST: '127.0.0.1', DATA_DIR: dir, SEED_PROFILES: '50', LOG_LEVEL: 'warn' });
const sample = await fetch('http://127.0.0.1:4411/terms', { headers: REQUEST_HEADERS });
const bytes = Buffer.from(await sample.arrayBuffer());
// fetch decodes the body: ask node:http for the raw encoded bytes instead.
const raw = await new Promise((resolve, reject) => {
  import('node:http').then(({ get }) => get({ host: '127.0.0.1', port: 4411, path: '/terms', headers: REQUEST_HEADERS }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => resolve({ body: Buffer.concat(chunks), headers: res.headers }));
  }).on('error', reject));
});
if (!bytes.toString('utf8').includes('lang="de-DE"')) throw new Error('/terms did not answer in German for lang=de');
const bodyFile = path.join(dir, 'body.bin');
writeFileSync(bodyFile, raw.body);
const { date, connection, 'keep-alive': _ka, ...headers } = raw.headers;
const bare = await start('bench/bare-server.mjs', { PORT: '4412', BODY_FILE: bodyFile, BODY_HEADERS: JSON.stringify(headers) });

console.log(`/terms: ${raw.body.length} bytes (${raw.headers['content-encoding'] ?? 'identity'}), ${CONNECTIONS} connections, ${DURATION} s each`);
// Warm both up, then measure each once.
await run('http://127.0.0.1:4411/terms');
const appResult = await run('http://127.0.0.1:4411/terms');
await run('http://127.0.0.1:4412/terms');
const bareResult = await run('http://127.0.0.1:4412/terms');
app.kill();
bare.kill();

const appRps = appResult.requests.average;
const bareRps = bareResult.requests.average;
const errors = appResult.errors + appResult.non2xx;
console.log(`kindred /terms        ${appRps.toFixed(0).padStart(7)} req/s  p50 ${appResult.latency.p50} ms  p99 ${appResult.latency.p99} ms  errors ${errors}`);
console.log(`bare node:http        ${bareRps.toFixed(0).padStart(7)} req/s  p50 ${bareResult.latency.p50} ms  p99 ${bareResult.latency.p99} ms`);
console.log(`ratio (kindred / bare) ${(appRps / bareRps).toFixed(2)}  (target ≥ 0.70)`);
