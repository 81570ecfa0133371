// npm run bench:pages — requests/s of the member pages (logged in) beside the static /terms from the
// same server in one run, with the bytes each sends on the wire (compressed, as a browser asks) and
// before compression. Aim: every member page ≥ 0.05 of /terms.
import { createHash, randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import pg from 'pg';
import { DURATION, loginDemoMember, machine, port, startServer, verdict } from './lib.mjs';

// Pages cost milliseconds each: fewer connections than the API benches, or a busy machine times them out.
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

const AIM = 0.05;
/** First views (BENCH_MODES=first): on SQLite, and with BENCH_DATABASE_URL on PostgreSQL. */
const FIRST_AIM = 0.1;
const FIRST_AIM_PG = 0.05;
/** Members made for the first views: each request uses one up (a run ends early when they run out). */
const FIRST_MEMBERS = Number(process.env.BENCH_FIRST_MEMBERS ?? 40_000);
const FIRST_WARM_UP = 300;
/** BENCH_DATABASE_URL: the server (and the busy writer) on that PostgreSQL database instead of SQLite. */
const DATABASE = process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {};
const BUSY_WRITES = Number(process.env.BENCH_BUSY_WRITES ?? 1000);
/**
 * One server, every page beside /terms. `env` picks the deployment: as started (every view loads its data
 * and renders its body into the page's kept layout frame) or MEMBER_FRAMES=0 (whole Astro renders).
 */
async function runServer(label, env, shift, busy = false, first = false, aim = AIM) {
const APP = port(4431 + shift);
const base = `http://127.0.0.1:${APP}`;
const dir = mkdtempSync(path.join(tmpdir(), 'kindred-pages-'));
const app = await startServer('dist/server-main.mjs', { PORT: String(APP), HOST: '127.0.0.1', DATA_DIR: dir, SEED_PROFILES: '2000', LOG_LEVEL: 'warn', ...DATABASE, ...env }, `${base}/terms`);

// A run that fails still ends its server.
process.once('exit', () => app.kill());
const session = await loginDemoMember(base);
// A busy site: another process writes to the database all the time (here: members of another site
// coming and going, BUSY_WRITES a second). Between two views of one page by a real member (seconds
// apart) a busy site always writes something; this bench asks for the same page thousands of times a
// second, so it writes about once a millisecond — more often than a render takes — to keep that true.
const writer = busy ? await startWriter(dir) : null;
// First views: every request is made by another member, signed in (a session of their own) but never
// seen by this process — no session or page of theirs is kept anywhere yet (page frames hold no member).
const newcomers = first ? await addMembers(dir, FIRST_MEMBERS) : null;
const HEADERS = { cookie: `${session}; lang=en`, 'accept-encoding': 'br, gzip', accept: 'text/html' };
// The baseline is the static /terms a visitor gets from memory (a member's /terms is rendered, with their menu).
const VISITOR = { cookie: 'lang=en', 'accept-encoding': 'br, gzip', accept: 'text/html' };
const headersFor = (pathname) => (pathname === '/terms' ? VISITOR : HEADERS);
const search = await (await fetch(`${base}/api/search.php`, { headers: { cookie: HEADERS.cookie } })).json();
const someone = search.results[0]?.id;
if (!someone) throw new Error('no profile to open');

/** Status, bytes on the wire and decoded bytes of one request, as a browser would make it. */
function fetchRaw(pathname) {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port: APP, path: pathname, headers: headersFor(pathname) }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const wire = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const html = encoding === 'br' ? brotliDecompressSync(wire) : encoding === 'gzip' ? gunzipSync(wire) : wire;
        resolve({ status: res.statusCode, wire: wire.length, html: html.length, encoding: encoding ?? 'identity', text: html.toString() });
      });
    }).on('error', reject);
  });
}

function load(pathname, warmUp = false) {
  const common = { url: `${base}${pathname}`, connections: CONNECTIONS, duration: DURATION, headers: headersFor(pathname) };
  if (!newcomers || pathname === '/terms') {
    return new Promise((resolve, reject) => autocannon(common, (err, r) => (err ? reject(err) : resolve(r))));
  }
  // Each request another member's first. A run asks for a fixed number of pages (autocannon's `amount`),
  // about DURATION seconds' worth at the warm-up's rate, at most the page's share of the members.
  const share = Math.floor(FIRST_MEMBERS / (PAGES.length + 1));
  const amount = warmUp ? FIRST_WARM_UP : Math.min(share, Math.max(FIRST_WARM_UP, Math.round(warmRate * DURATION)));
  const cookies = newcomers.splice(0, amount);
  if (cookies.length < amount) throw new Error('too few members: raise BENCH_FIRST_MEMBERS');
  let next = 0;
  const setupRequest = (request) => ({ ...request, headers: { ...request.headers, cookie: `${cookies[next++]}; lang=en` } });
  // autocannon ends a run of `amount` requests on its next whole-second tick: time it to its last answer.
  const started = performance.now();
  let last = started;
  return new Promise((resolve, reject) => {
    const instance = autocannon({ ...common, amount, requests: [{ setupRequest }] }, (err, r) => {
      if (err) return reject(err);
      if (next > cookies.length) return reject(new Error(`${next} requests for ${cookies.length} members`));
      const rate = r.requests.total / ((last - started) / 1000);
      if (warmUp) warmRate = rate;
      resolve({ ...r, requests: { ...r.requests, average: rate } });
    });
    instance.on('response', () => {
      last = performance.now();
    });
  });
}
let warmRate = 0;

// BENCH_PAGES=/members,/chats … measures only those (`/members/{id}` for a profile).
const PAGES = ['/members', '/chats', '/likes', `/members/${someone}`, '/profile']
  .filter((p) => !process.env.BENCH_PAGES || process.env.BENCH_PAGES.split(',').includes(p.replace(/\d+$/, '{id}')));
const rows = [];
const measure = async (pathname) => {
  const raw = await fetchRaw(pathname);
  if (raw.status !== 200) throw new Error(`${pathname} answered ${raw.status}`);
  if (pathname !== '/terms' && !raw.text.includes('data-logged-in="true"')) throw new Error(`${pathname} was not rendered for the member`);
  await load(pathname, true); // warm-up
  const cpuBefore = cpuMs(app.pid);
  const r = await load(pathname);
  const cpu = cpuMs(app.pid) - cpuBefore;
  return { pathname, rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.non2xx, cpuUs: (cpu * 1000) / Math.max(1, r.requests.total), ...raw };
};
// Other work on the machine changes from minute to minute: each page is measured between two runs of
// /terms and compared with their mean.
let before = await measure('/terms');
const termsRuns = [before];
for (const pathname of PAGES) {
  const row = await measure(pathname);
  const after = await measure('/terms');
  termsRuns.push(after);
  rows.push({ ...row, baseline: (before.rps + after.rps) / 2 });
  before = after;
}
if (writer) console.log(`(the other process wrote ${await writer.stop()} rows)`);
app.kill();

const termsRps = termsRuns.reduce((sum, r) => sum + r.rps, 0) / termsRuns.length;
const termsCpu = termsRuns.reduce((sum, r) => sum + r.cpuUs, 0) / termsRuns.length;
console.log(`\n${label}`);
console.log(line({ ...termsRuns[0], rps: termsRps, cpuUs: termsCpu }, '(baseline)'));
let met = true;
for (const r of rows) {
  const ratio = r.rps / r.baseline;
  met = met && ratio >= aim && r.errors === 0;
  // Beside the aim's ratio (requests/s, which the load generator on the same CPUs sways), the server's own
  // CPU time per request against /terms's: steadier from run to run, not the aim.
  console.log(line(r, `ratio ${ratio.toFixed(3)} (/terms beside it ${r.baseline.toFixed(0)} req/s; CPU ratio ${(termsCpu / r.cpuUs).toFixed(3)})${r.errors ? `  errors ${r.errors}` : ''}`));
}
return met;
}

/**
 * The busy site's other process: BUSY_WRITES updates a second of profiles of another site, on the
 * server's database (SQLite file in `dir`, or DATABASE_URL's PostgreSQL). Answers stop() → rows written.
 */
async function startWriter(dir) {
  const pgUrl = DATABASE.DATABASE_URL ?? (process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : null);
  let ids;
  let touch;
  let close;
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query('set synchronous_commit = off'); // the writer's durability is not what is measured
    ids = (await client.query("select id from profiles where site_id != 'kindred' limit 500")).rows.map((r) => r.id);
    touch = (at, id) => client.query('update profiles set last_active_at = $1 where id = $2', [at, id]);
    close = () => client.end();
  } else {
    const other = new Database(path.join(dir, 'kindred.db'));
    other.pragma('busy_timeout = 1000');
    other.pragma('synchronous = OFF'); // the writer's durability is not what is measured
    ids = other.prepare("select id from profiles where site_id != 'kindred' limit 500").pluck().all();
    const statement = other.prepare('update profiles set last_active_at = ? where id = ?');
    touch = async (at, id) => statement.run(at, id);
    close = async () => other.close();
  }
  let n = 0;
  let running = true;
  // Timers fire at most about once a millisecond: each round writes what has fallen due since the last.
  const started = Date.now();
  const loop = (async () => {
    while (running) {
      const due = Math.floor(((Date.now() - started) * BUSY_WRITES) / 1000);
      while (n < due) await touch(Date.now(), ids[n++ % ids.length]);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await close();
      return n;
    },
  };
}

/**
 * `count` members of the premium demo member's kind (same profile, photos, credits) with a session each,
 * written straight to the server's database; answers their session cookies. Their profiles are copies of
 * the demo member's, so searches (theirs and the others') show what they showed before.
 */
async function addMembers(dir, count) {
  const now = Date.now();
  const run = randomBytes(4).toString('hex');
  const tokens = Array.from({ length: count }, () => randomBytes(32).toString('base64url'));
  const hash = (token) => createHash('sha256').update(token).digest('hex');
  const userColumns = ['site_id', 'email', 'email_normalized', 'password_hash', 'status', 'role', 'credits', 'paid_user', 'language', 'email_prefs', 'push_prefs', 'api_signup', 'created_at', 'confirmed_at'];
  const profileColumns = ['site_id', 'name', 'gender', 'sexuality', 'birth_date', 'country', 'region', 'city', 'hair_color', 'eye_color', 'body_type', 'relationship_status', 'tattoos', 'fictional', 'invisible', 'has_photo', 'status', 'last_active_at', 'created_at'];
  const EMAIL = 'premium@kindred.example';
  const TEMPLATE_USER = `select ${userColumns.join(', ')} from users where email_normalized = '${EMAIL}'`;
  const TEMPLATE_PROFILE = `select p.${profileColumns.join(', p.')} from profiles p join users u on u.id = p.user_id where u.email_normalized = '${EMAIL}'`;
  const TEMPLATE_PHOTO = `select f.filename, f.thumb_filename, f.status from photos f join profiles p on p.id = f.profile_id join users u on u.id = p.user_id where u.email_normalized = '${EMAIL}' and f.is_main = 1`;
  const rowOf = (template, i, columns, extra) => {
    const email = `first-${run}-${i}@kindred.example`;
    return [...columns.map((c) => (c === 'email' || c === 'email_normalized' ? email : c.endsWith('created_at') || c === 'confirmed_at' || c === 'last_active_at' ? now : template[c])), ...extra];
  };
  const place = (n, from = 1, pg = false) => Array.from({ length: n }, (_x, k) => (pg ? `$${from + k}` : '?')).join(', ');
  const pgUrl = DATABASE.DATABASE_URL;
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    const [user] = (await client.query(TEMPLATE_USER)).rows;
    const [profile] = (await client.query(TEMPLATE_PROFILE)).rows;
    const [photo] = (await client.query(TEMPLATE_PHOTO)).rows;
    await client.query('begin');
    for (let start = 0; start < count; start += 500) {
      const batch = tokens.slice(start, start + 500);
      const users = batch.map((_t, k) => rowOf(user, start + k, userColumns, []));
      const values = users.map((row, k) => `(${place(row.length, k * row.length + 1, true)})`).join(', ');
      const ids = (await client.query(`insert into users (${userColumns.join(', ')}) values ${values} returning id`, users.flat())).rows.map((r) => r.id);
      const profiles = ids.map((id, k) => [...rowOf(profile, start + k, profileColumns, []), id]);
      const pValues = profiles.map((row, k) => `(${place(row.length, k * row.length + 1, true)})`).join(', ');
      const pIds = (await client.query(`insert into profiles (${profileColumns.join(', ')}, user_id) values ${pValues} returning id`, profiles.flat())).rows.map((r) => r.id);
      if (photo) {
        const photos = pIds.map((id) => [id, photo.filename, photo.thumb_filename, photo.status, 1, now]);
        await client.query(`insert into photos (profile_id, filename, thumb_filename, status, is_main, created_at) values ${photos.map((_row, k) => `(${place(6, k * 6 + 1, true)})`).join(', ')}`, photos.flat());
      }
      const sessions = ids.map((id, k) => [hash(batch[k]), id, now, now + 86_400_000]);
      await client.query(`insert into sessions (token_hash, user_id, created_at, expires_at) values ${sessions.map((_row, k) => `(${place(4, k * 4 + 1, true)})`).join(', ')}`, sessions.flat());
    }
    await client.query('commit');
    await client.end();
  } else {
    const db = new Database(path.join(dir, 'kindred.db'));
    db.pragma('busy_timeout = 5000');
    const user = db.prepare(TEMPLATE_USER).get();
    const profile = db.prepare(TEMPLATE_PROFILE).get();
    const photo = db.prepare(TEMPLATE_PHOTO).get();
    const addUser = db.prepare(`insert into users (${userColumns.join(', ')}) values (${place(userColumns.length)})`);
    const addProfile = db.prepare(`insert into profiles (${profileColumns.join(', ')}, user_id) values (${place(profileColumns.length + 1)})`);
    const addPhoto = db.prepare('insert into photos (profile_id, filename, thumb_filename, status, is_main, created_at) values (?, ?, ?, ?, 1, ?)');
    const addSession = db.prepare('insert into sessions (token_hash, user_id, created_at, expires_at) values (?, ?, ?, ?)');
    db.transaction(() => {
      tokens.forEach((token, i) => {
        const userId = addUser.run(...rowOf(user, i, userColumns, [])).lastInsertRowid;
        const profileId = addProfile.run(...rowOf(profile, i, profileColumns, [userId])).lastInsertRowid;
        if (photo) addPhoto.run(profileId, photo.filename, photo.thumb_filename, photo.status, now);
        addSession.run(hash(token), userId, now, now + 86_400_000);
      });
    })();
    // Into the database file at once: a long write-ahead log slows every read of the server after it.
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  }
  return tokens.map((token) => `kd_session=${token}`);
}

/** The server process's CPU time so far (user + system, ms), from /proc (Linux); NaN elsewhere. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}
const TICKS_PER_SECOND = 100;

const line = (r, ratio) =>
  `${r.pathname.padEnd(16)} ${r.rps.toFixed(0).padStart(7)} req/s  ${r.cpuUs.toFixed(0).padStart(5)} µs CPU  p99 ${r.p99.toFixed(0).padStart(5)} ms  ${String(r.wire).padStart(6)} B on the wire (${r.encoding})  ${String(r.html).padStart(6)} B HTML  ${ratio}`;
console.log(machine());
console.log(`${CONNECTIONS} connections, ${DURATION} s per run; members logged in (premium demo member), /terms as a visitor (static, from memory) before and after each page`);
// BENCH_MODES=quiet,busy,astro,first (all but first by default) picks the runs.
const MODES = (process.env.BENCH_MODES ?? 'quiet,busy,astro').split(',');
const cached = !MODES.includes('quiet') || await runServer('as deployed, one member viewing a page again and again (their session kept): data loaded, body rendered into the page\'s kept layout frame', {}, 0);
const busy = !MODES.includes('busy') || await runServer(`busy site: another process writes ${BUSY_WRITES} rows a second elsewhere in the database (the member's kept session is dropped at every write)`, {}, 2, true);
// Not an aim of its own: what a view costs when Astro renders the layout too (a process's first view of
// each page shape, before its layout frame is kept).
const astro = !MODES.includes('astro') || await runServer('every view rendered by Astro (MEMBER_FRAMES=0: a first view, before its layout frame is kept)', { MEMBER_FRAMES: '0' }, 3);
if (MODES.includes('astro')) console.log(`whole Astro renders: ${astro ? 'also' : 'not'} ≥ ${AIM} of /terms (a process's first view of each page shape; not an aim)`);
// The normal path alone: each request a member's first view (a member this process has not seen, so no
// session or page of theirs is kept; the page's layout frame, which holds no member, is), as deployed.
const firstAim = DATABASE.DATABASE_URL ? FIRST_AIM_PG : FIRST_AIM;
const firsts = !MODES.includes('first') || await runServer(`first views (${DATABASE.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}): every request another member, signed in and never seen by this process before (aim ≥ ${firstAim} of /terms)`, {}, 4, false, true, firstAim);
if (MODES.includes('first') && MODES.length === 1) verdict(`every member page's first view ≥ ${firstAim} of /terms on the same server (${DATABASE.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, firsts);
else verdict(`every member page ≥ ${AIM} of /terms on the same server: on a quiet site and a busy site${MODES.includes('first') ? `; first views ≥ ${firstAim}` : ''}`, cached && busy && firsts);
