// npm run bench:static — requests/s for /terms (unprefixed, locale from the cookie) through the
// real server, beside a bare node:http server returning the same bytes, measured in one run.
import { get } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CONNECTIONS, DURATION, compare, report, startServer } from './lib.mjs';

const HEADERS = { cookie: 'lang=de', 'accept-encoding': 'br, gzip' };
const dir = mkdtempSync(path.join(tmpdir(), 'kindred-bench-'));
const app = await startServer('dist/server-main.mjs', { PORT: '4411', HOST: '127.0.0.1', DATA_DIR: dir, SEED_PROFILES: '50', LOG_LEVEL: 'warn' }, 'http://127.0.0.1:4411/terms', HEADERS);

// The exact encoded bytes and headers the app sends, for the baseline to repeat.
const raw = await new Promise((resolve, reject) => {
  get({ host: '127.0.0.1', port: 4411, path: '/terms', headers: HEADERS }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => resolve({ body: Buffer.concat(chunks), headers: res.headers }));
  }).on('error', reject);
});
if (raw.headers['content-language'] !== 'de') throw new Error('/terms did not answer in German for lang=de');
const bodyFile = path.join(dir, 'body.bin');
writeFileSync(bodyFile, raw.body);
const { date, connection, 'keep-alive': _ka, ...headers } = raw.headers;
const bare = await startServer('bench/bare-server.mjs', { PORT: '4412', BODY_FILE: bodyFile, BODY_HEADERS: JSON.stringify(headers) }, 'http://127.0.0.1:4412/');

console.log(`/terms: ${raw.body.length} bytes (${raw.headers['content-encoding'] ?? 'identity'}), ${CONNECTIONS} connections, ${DURATION} s per run, 2 alternating runs each`);
const result = await compare('http://127.0.0.1:4411/terms', 'http://127.0.0.1:4412/terms', HEADERS);
app.kill();
bare.kill();
report('kindred /terms', result, '0.70');
