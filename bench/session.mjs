// npm run bench:session — requests/s of GET /api/user.php with a valid session, beside a bare
// node:http server answering the same JSON, measured in one run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CONNECTIONS, DURATION, compare, machine, port, report, startServer, verdict } from './lib.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'kindred-bench-'));
const db = process.env.BENCH_DATABASE_URL;
const APP = port(4421);
const BARE = port(4422);
const env = { PORT: String(APP), HOST: '127.0.0.1', DATA_DIR: dir, SEED_PROFILES: '2000', LOG_LEVEL: 'warn', ...(db ? { DATABASE_URL: db } : {}) };
const app = await startServer('dist/server-main.mjs', env, `http://127.0.0.1:${APP}/api/settings.php`);

const login = await fetch(`http://127.0.0.1:${APP}/api/user.php`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'free@kindred.example', password: 'kindred-demo-2026' }),
});
const cookie = login.headers.get('set-cookie')?.split(';')[0];
if (!login.ok || !cookie) throw new Error(`login failed: ${login.status}`);
// As a browser asks (the answer is under the 1 KB compression threshold, so the bytes are the same).
const HEADERS = { cookie, 'accept-encoding': 'br, gzip' };
const sample = await fetch(`http://127.0.0.1:${APP}/api/user.php`, { headers: HEADERS });
const body = await sample.text();
if (!JSON.parse(body).user) throw new Error('the session did not resolve to a user');
const bodyFile = path.join(dir, 'user.json');
writeFileSync(bodyFile, body);
// The baseline repeats the app's exact bytes: body and headers (security headers included).
const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...appHeaders } = Object.fromEntries(sample.headers);
const bare = await startServer('bench/bare-server.mjs', { PORT: String(BARE), BODY_FILE: bodyFile, BODY_HEADERS: JSON.stringify(appHeaders) }, `http://127.0.0.1:${BARE}/`);

console.log(machine());
console.log(`GET /api/user.php (${db ? 'PostgreSQL' : 'SQLite'}), ${body.length} bytes, ${CONNECTIONS} connections, ${DURATION} s per run, 2 alternating runs each`);
const result = await compare(`http://127.0.0.1:${APP}/api/user.php`, `http://127.0.0.1:${BARE}/`, HEADERS);
app.kill();
bare.kill();
const met = report('kindred GET /api/user.php', result, 0.5);
verdict('GET /api/user.php with a session ≥ 0.5 of bare node:http', met);
