// npm run bench:session — requests/s of GET /api/user.php with a valid session, beside a bare
// node:http server answering the same JSON, measured in one run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CONNECTIONS, DURATION, compare, report, startServer } from './lib.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'kindred-bench-'));
const db = process.env.BENCH_DATABASE_URL;
const env = { PORT: '4421', HOST: '127.0.0.1', DATA_DIR: dir, SEED_PROFILES: '2000', LOG_LEVEL: 'warn', ...(db ? { DATABASE_URL: db } : {}) };
const app = await startServer('dist/server-main.mjs', env, 'http://127.0.0.1:4421/api/settings.php');

const login = await fetch('http://127.0.0.1:4421/api/user.php', {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'free@kindred.example', password: 'kindred-demo-2026' }),
});
const cookie = login.headers.get('set-cookie')?.split(';')[0];
if (!login.ok || !cookie) throw new Error(`login failed: ${login.status}`);
const HEADERS = { cookie };
const sample = await fetch('http://127.0.0.1:4421/api/user.php', { headers: HEADERS });
const body = await sample.text();
if (!JSON.parse(body).user) throw new Error('the session did not resolve to a user');
const bodyFile = path.join(dir, 'user.json');
writeFileSync(bodyFile, body);
const bare = await startServer('bench/bare-server.mjs', { PORT: '4422', BODY_FILE: bodyFile, BODY_HEADERS: JSON.stringify({ 'content-type': 'application/json' }) }, 'http://127.0.0.1:4422/');

console.log(`GET /api/user.php (${db ? 'PostgreSQL' : 'SQLite'}), ${body.length} bytes, ${CONNECTIONS} connections, ${DURATION} s per run, 2 alternating runs each`);
const result = await compare('http://127.0.0.1:4421/api/user.php', 'http://127.0.0.1:4422/', HEADERS);
app.kill();
bare.kill();
report('kindred GET /api/user.php', result, '0.40');
