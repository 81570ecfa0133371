// npm run bench:mixed — a realistic evening: BENCH_MEMBERS members (default 1,000), each with an open
// event stream, browsing member pages (a different member each time, so first views happen), reading
// the API, liking and chatting, in a mix of 60 % page views, 25 % API reads and 15 % writes, from
// BENCH_CONNECTIONS concurrent clients for BENCH_SECONDS. Runs the built server (dist/server-main.mjs)
// as deployed: on SQLite in one process, or with BENCH_DATABASE_URL (PostgreSQL) and BENCH_REDIS_URL
// in two processes, the load spread over both in turn as a round-robin balancer would. Prints the
// throughput, p50/p99 per kind, the deliveries the streams received, and the same load against a bare
// node:http server answering every request with the bytes of a member page, in the same run.
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { createAppContext } from '../src/server/app-context';
import { readConfig } from '../src/server/config';
import { refreshPlannerStatistics } from '../src/server/db/seed';
import { type BenchMember, insertBenchMembers } from './bench-members';
import { machine, port, startServer } from './lib.mjs';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const PG = process.env.BENCH_DATABASE_URL;
const REDIS = process.env.BENCH_REDIS_URL;
const PROCESSES = PG ? 2 : 1;
if (PG && !REDIS) throw new Error('BENCH_DATABASE_URL needs BENCH_REDIS_URL too: two processes share events through Redis');

type Kind = 'page' | 'read' | 'write';
interface Call { kind: Kind; label: string; method: 'GET' | 'POST'; path: string; body?: string; cookie: string; html?: boolean }

const WORDS = 'sun walk coffee river book music dinner garden train city beach movie cat dog bike rain tea market museum picnic jazz hiking sailing pasta sunset forest window evening story laugh'.split(' ');
const text = () => Array.from({ length: 7 }, () => WORDS[Math.floor(Math.random() * WORDS.length)]).join(' ');
const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)] as T;

/** One request of the evening's mix. */
function nextCall(members: BenchMember[]): Call {
  const me = pick(members);
  let other = pick(members);
  if (other === me) other = members[(members.indexOf(me) + 1) % members.length] as BenchMember;
  const r = Math.random();
  if (r < 0.6) {
    const page = pick(['/members', `/members/${other.profileId}`, '/chats', '/likes', '/profile']);
    return { kind: 'page', label: page.startsWith('/members/') ? '/members/{id}' : page, method: 'GET', path: page, cookie: me.cookie, html: true };
  }
  if (r < 0.85) {
    const api = pick(['/api/search.php', '/api/user.php', '/api/chats.php', '/api/likes.php']);
    return { kind: 'read', label: api, method: 'GET', path: api, cookie: me.cookie };
  }
  if (r < 0.95) {
    const body = JSON.stringify({ kind: 'text', client_id: `mixed-${randomBytes(8).toString('hex')}`, profile_id: other.profileId, text: text() });
    return { kind: 'write', label: 'POST /api/messages.php', method: 'POST', path: '/api/messages.php', body, cookie: me.cookie };
  }
  return { kind: 'write', label: 'POST /api/like.php', method: 'POST', path: '/api/like.php', body: JSON.stringify({ profile_id: other.profileId }), cookie: me.cookie };
}

interface Answer { status: number; ms: number; bytes: number }

function call(agent: Agent, portNo: number, c: Call): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { host: 'localhost', cookie: c.cookie, 'accept-encoding': 'br, gzip' };
    if (c.html) headers.accept = 'text/html';
    if (c.body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(c.body) });
    const req = request({ host: '127.0.0.1', port: portNo, path: c.path, method: c.method, agent, headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => { bytes += chunk.length; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, bytes }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started, bytes: 0 }));
    req.end(c.body);
  });
}

interface Tally { calls: number; errors: number; ms: number[] }
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** BENCH_CONNECTIONS clients, each sending the next call as soon as the last one answered, for `seconds`. */
async function evening(ports: number[], members: BenchMember[], seconds = SECONDS) {
  const agents = ports.map(() => new Agent({ keepAlive: true, maxSockets: CONNECTIONS }));
  const byKind = new Map<string, Tally>();
  const tally = (key: string) => byKind.get(key) ?? (byKind.set(key, { calls: 0, errors: 0, ms: [] }).get(key) as Tally);
  let turn = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < end) {
      const c = nextCall(members);
      const target = turn++ % ports.length;
      const answer = await call(agents[target] as Agent, ports[target] as number, c);
      for (const key of [c.kind, `${c.kind} ${c.label}`]) {
        const t = tally(key);
        t.calls++;
        t.ms.push(answer.ms);
        if (answer.status < 200 || answer.status >= 300) t.errors++;
      }
    }
  }));
  const took = (performance.now() - started) / 1000;
  for (const agent of agents) agent.destroy();
  return { byKind, seconds: took };
}

function print(label: string, result: Awaited<ReturnType<typeof evening>>) {
  const kinds = ['page', 'read', 'write'].map((k) => result.byKind.get(k)).filter(Boolean) as Tally[];
  const total = kinds.reduce((n, t) => n + t.calls, 0);
  const errors = kinds.reduce((n, t) => n + t.errors, 0);
  console.log(`${label}: ${(total / result.seconds).toFixed(0)} req/s in all (${total} calls, errors ${errors})`);
  for (const [key, t] of [...result.byKind].sort(([a], [b]) => a.localeCompare(b))) {
    const sorted = t.ms.sort((a, b) => a - b);
    const indent = key.includes(' ') ? '    ' : '  ';
    console.log(`${indent}${key.padEnd(key.includes(' ') ? 34 : 36)} ${(t.calls / result.seconds).toFixed(0).padStart(6)} req/s  p50 ${percentile(sorted, 0.5).toFixed(1).padStart(6)} ms  p99 ${percentile(sorted, 0.99).toFixed(1).padStart(7)} ms  errors ${t.errors}`);
  }
  return { total: total / result.seconds, errors };
}

/** Opens every member's event stream on the processes in turn; counts the chat messages they deliver. */
function openStreams(ports: number[], members: BenchMember[]) {
  let delivered = 0;
  let open = 0;
  let failed = 0;
  const requests = members.map((m, k) => {
    const req = request({ host: '127.0.0.1', port: ports[k % ports.length], path: '/api/events.php', agent: false, headers: { host: 'localhost', cookie: m.cookie, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) failed++;
      else open++;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { delivered += chunk.split('"type":"message"').length - 1; });
      res.on('error', () => undefined);
    });
    req.on('error', () => { failed++; });
    req.end();
    return req;
  });
  return { stats: () => ({ delivered, open, failed }), close: () => { for (const r of requests) r.destroy(); } };
}

const dir = mkdtempSync(path.join(tmpdir(), 'kindred-mixed-'));
const children: ChildProcess[] = [];
try {
  console.log(`bench:mixed — ${MEMBERS} members with an open event stream each, ${CONNECTIONS} concurrent clients for ${SECONDS} s: 60 % member pages, 25 % API reads, 15 % writes (messages, likes)`);
  console.log(PG ? `PostgreSQL (${PG.replace(/\/\/[^@]*@/, '//')}) + Redis, ${PROCESSES} processes, requests to each in turn` : 'SQLite, one process');
  const env = {
    HOST: '127.0.0.1', DATA_DIR: dir, SEED_PROFILES: '2000', LOG_LEVEL: 'warn',
    ...(PG ? { DATABASE_URL: PG, REDIS_URL: REDIS } : {}),
  };
  const ports = Array.from({ length: PROCESSES }, (_, k) => port(4470 + k));
  // The first process migrates and seeds; then the bench members go straight into the database.
  for (const [k, p] of ports.entries()) {
    children.push(await startServer('dist/server-main.mjs', { ...env, PORT: String(p), ...(k > 0 ? { SEED_ON_EMPTY: '0' } : {}) }, `http://127.0.0.1:${p}/terms`));
  }
  const app = await createAppContext(readConfig({ NODE_ENV: 'production', DEPLOYMENT: 'demo', DATA_DIR: dir, LOG_LEVEL: 'silent', SEED_ON_EMPTY: '0', ...(PG ? { DATABASE_URL: PG } : {}) }), { logger: pino({ level: 'silent' }) });
  const t0 = performance.now();
  const members = await insertBenchMembers(app, MEMBERS);
  await refreshPlannerStatistics(app);
  await app.close();
  console.log(`setup: ${MEMBERS} members in ${(performance.now() - t0).toFixed(0)} ms`);

  const streams = openStreams(ports, members);
  for (let i = 0; i < 200 && streams.stats().open + streams.stats().failed < MEMBERS; i++) await new Promise((r) => setTimeout(r, 50));
  console.log(`event streams: ${streams.stats().open} open, ${streams.stats().failed} refused`);

  // A short warm-up (module loading, statement preparation), not counted.
  const warm = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
  if (warm > 0) await evening(ports, members.slice(0, 50), warm);
  // The warm-up's last messages may still be on their way through Redis to the other process's streams:
  // counted before the evening, not in it (as after it, below).
  await new Promise((r) => setTimeout(r, 1000));
  const deliveredBefore = streams.stats().delivered;

  const app1 = await evening(ports, members);
  const kindred = print('kindred', app1);
  await new Promise((r) => setTimeout(r, 1000));
  const delivered = streams.stats().delivered - deliveredBefore;
  const sent = app1.byKind.get('write POST /api/messages.php');
  const stored = sent ? sent.calls - sent.errors : 0;
  streams.close();

  // The bare server: one process per app process, every answer the bytes of a member page.
  const sample = await fetch(`http://127.0.0.1:${ports[0]}/members`, { headers: { host: 'localhost', cookie: members[0]?.cookie ?? '', accept: 'text/html' } });
  const bodyFile = path.join(dir, 'bare-body');
  writeFileSync(bodyFile, Buffer.from(await sample.arrayBuffer()));
  for (const child of children.splice(0)) child.kill('SIGTERM');
  const barePorts = ports.map((p) => p + 10);
  for (const p of barePorts) {
    const bare = fork('bench/bare-server.mjs', [], { env: { ...process.env, PORT: String(p), BODY_FILE: bodyFile, BODY_HEADERS: JSON.stringify({ 'content-type': 'text/html; charset=utf-8' }) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    children.push(bare);
    await new Promise((r) => bare.once('message', r));
  }
  const bare = print('bare node:http, a member page\'s bytes', await evening(barePorts, members));
  console.log(`chat messages: ${stored} sent, ${delivered} deliveries on the open streams (${2 * stored} expected: sender and recipient each get one)`);
  console.log(`ratio ${(kindred.total / bare.total).toFixed(3)} (kindred/bare, requests/s of the whole mix)`);
  console.log(machine());
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
