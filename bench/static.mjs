// npm run bench:static — requests/s for /terms (unprefixed, locale from the cookie) and for one lander
// (/landers/gallery, which also sets the visit's tracking cookie) through the real server, each beside a
// bare node:http server returning the same bytes, measured in one run.
import { get } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CONNECTIONS, DURATION, compare, machine, port, report, startServer, verdict } from './lib.mjs';

const HEADERS = { cookie: 'lang=de', 'accept-encoding': 'br, gzip' };
const dir = mkdtempSync(path.join(tmpdir(), 'kindred-bench-'));
const APP = port(4411);
const app = await startServer('dist/server-main.mjs', { PORT: String(APP), HOST: '127.0.0.1', DATA_DIR: dir, SEED_PROFILES: '50', LOG_LEVEL: 'warn' }, `http://127.0.0.1:${APP}/terms`, HEADERS);

/** The exact encoded bytes and headers the app sends for a path, for the baseline to repeat. */
function fetchRaw(pathname) {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port: APP, path: pathname, headers: HEADERS }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ body: Buffer.concat(chunks), headers: res.headers }));
    }).on('error', reject);
  });
}

console.log(machine());
const results = [];
for (const [i, pathname] of ['/terms', '/landers/gallery'].entries()) {
  const raw = await fetchRaw(pathname);
  if (raw.headers['content-language'] !== 'de') throw new Error(`${pathname} did not answer in German for lang=de`);
  const bodyFile = path.join(dir, `body-${i}.bin`);
  writeFileSync(bodyFile, raw.body);
  const { date, connection, 'keep-alive': _ka, ...headers } = raw.headers;
  const barePort = port(4412 + i);
  const bare = await startServer('bench/bare-server.mjs', { PORT: String(barePort), BODY_FILE: bodyFile, BODY_HEADERS: JSON.stringify(headers) }, `http://127.0.0.1:${barePort}/`);
  console.log(`${pathname}: ${raw.body.length} bytes (${raw.headers['content-encoding'] ?? 'identity'}), ${CONNECTIONS} connections, ${DURATION} s per run, 2 alternating runs each`);
  results.push([pathname, await compare(`http://127.0.0.1:${APP}${pathname}`, `http://127.0.0.1:${barePort}${pathname}`, HEADERS)]);
  bare.kill();
}
app.kill();
let met = true;
for (const [pathname, result] of results) met = report(`kindred ${pathname}`, result, 0.7) && met;
verdict('static pages ≥ 0.7 of bare node:http', met);
