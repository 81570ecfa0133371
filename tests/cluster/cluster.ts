// The cluster of `npm run test:cluster`: PostgreSQL and Redis (the local ones), the S3 test server
// (once scripts/s3-test-server.mjs exists), two app processes of the production build and nginx
// from Debian as the balancer, running docs/deploy/nginx-kindred.conf.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import pg from 'pg';
import { portAnswers } from '../../scripts/port-answers.mjs';
import { smtpReceiver } from '../helpers/smtp';

export const BASE_PORT = Number(process.env.CLUSTER_PORT ?? 4530);
export const NGINX_PORT = BASE_PORT;
export const SMTP_PORT = BASE_PORT + 3;
export const S3_PORT = BASE_PORT + 4;
export const METRICS_TOKEN = 'cluster-metrics-token';
/** Jobs whose process died are taken over this soon (production: 5 minutes). */
export const JOB_LEASE_MS = 3000;
export const DATABASE_SERVER = (process.env.CLUSTER_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres').replace(/\/[^/]*$/, '');
/** Its own Redis database, emptied at the start (abuse-limit counts of earlier runs). Pub/sub channels are server-wide. */
export const REDIS_URL = process.env.CLUSTER_REDIS_URL ?? `${(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379').replace(/\/\d+$/, '')}/13`;
const NGINX = process.env.NGINX_PATH ?? (existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx');
const WORK = path.resolve(process.env.CLUSTER_DIR ?? 'test-results/cluster');
const S3_SCRIPT = 'scripts/s3-test-server.mjs';

export type ProcessName = 'a' | 'b';

interface AppProcess {
  name: ProcessName;
  port: number;
  child: ChildProcess | null;
  exited: Promise<number | null>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PostgreSQL and Redis must answer; when they do not, try to start the local ones once, then say what is missing. */
export async function requireServices() {
  const pgUrl = new URL(DATABASE_SERVER);
  const redisUrl = new URL(REDIS_URL);
  const wanted = [
    { name: 'PostgreSQL', host: pgUrl.hostname, port: Number(pgUrl.port || 5432), service: 'postgresql' },
    { name: 'Redis', host: redisUrl.hostname, port: Number(redisUrl.port || 6379), service: 'redis-server' },
  ];
  for (const s of wanted) {
    if (await portAnswers(s.host, s.port)) continue;
    try {
      execFileSync('service', [s.service, 'start'], { stdio: 'ignore', timeout: 30_000 });
      for (let i = 0; i < 20 && !(await portAnswers(s.host, s.port)); i++) await sleep(500);
    } catch {
      // no service manager or not allowed: said below
    }
    if (!(await portAnswers(s.host, s.port))) {
      throw new Error(`The cluster test needs ${s.name} at ${s.host}:${s.port} and could not start it (\`service ${s.service} start\`). `
        + 'Start it, or point CLUSTER_DATABASE_URL / CLUSTER_REDIS_URL at running servers.');
    }
  }
}

/** The SMTP server the processes send to; a recipient in `stalled` gets no answer to its mail until released. */
export function startMail() {
  const mails: { to: string[]; raw: string }[] = [];
  const stalled = new Map<string, (() => void)[]>();
  const server = smtpReceiver(async (recipients, raw) => {
    const to = recipients.map((r) => r.toLowerCase());
    const held = to.find((t) => stalled.has(t));
    if (held) await new Promise<void>((accept) => stalled.get(held)?.push(accept));
    mails.push({ to, raw });
  });
  return {
    mails,
    stall(address: string) {
      stalled.set(address.toLowerCase(), []);
    },
    /** Answers the held mails (a sender that died meanwhile never hears it) and stops holding. */
    release(address: string) {
      const held = stalled.get(address.toLowerCase()) ?? [];
      stalled.delete(address.toLowerCase());
      for (const accept of held) accept();
    },
    heldCount: (address: string) => stalled.get(address.toLowerCase())?.length ?? 0,
    listen: () => new Promise<void>((resolve) => server.listen(SMTP_PORT, '127.0.0.1', () => resolve())),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in the newest mail to `address` containing `pathPart`. */
export async function linkFromMail(mails: { to: string[]; raw: string }[], address: string, pathPart: string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const decode = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  while (Date.now() < deadline) {
    for (const mail of [...mails].reverse()) {
      if (!mail.to.includes(address.toLowerCase())) continue;
      const match = decode(mail.raw).match(new RegExp(`https?://[^\\s"<>]*${pathPart.replace(/[.?]/g, '\\$&')}[^\\s"<>]*`));
      if (match) return match[0].replace(/&amp;/g, '&');
    }
    await sleep(200);
  }
  throw new Error(`no mail to ${address} with ${pathPart}`);
}

/** nginx.conf around the reference site file, with the test's ports and the answering process in `X-Upstream`. */
function nginxConfig(ports: number[], extraListen: string[]): string {
  const site = readFileSync('docs/deploy/nginx-kindred.conf', 'utf8')
    .split('\n')
    .flatMap((line) => {
      if (line.includes('# cluster:upstream')) return line.includes('10.0.0.11') ? ports.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`) : [];
      // Both loopbacks: Node's fetch may resolve localhost to ::1 (the local provider's webhook calls).
      if (line.includes('# cluster:listen')) return [`    listen 127.0.0.1:${NGINX_PORT};`, `    listen [::1]:${NGINX_PORT};`, ...extraListen.map((a) => `    listen ${a}:${NGINX_PORT};`)];
      if (line.includes('# cluster:server_name')) return ['    server_name _;', '    add_header X-Upstream $upstream_addr always;'];
      if (line.includes('# cluster:access_log')) return [`    access_log ${WORK}/nginx/access.log kindred;`];
      return [line];
    })
    .join('\n');
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${WORK}/nginx/${t};`).join('\n');
  return `daemon off;\nworker_processes 1;\npid ${WORK}/nginx/nginx.pid;\nerror_log ${WORK}/nginx/error.log warn;\nevents { worker_connections 4096; }\nhttp {\n${temp}\n${site}\n}\n`;
}

export interface Cluster {
  url: string;
  /** nginx by the machine's name (not localhost): links made from it are ones a payment provider would call. */
  namedUrl: string;
  processes: Record<ProcessName, AppProcess>;
  db: pg.Pool;
  mail: ReturnType<typeof startMail>;
  /** Direct address of one process (bypassing nginx): for /metrics and /readyz. */
  direct(name: ProcessName, pathname: string): string;
  /** Which process answered: the upstream address nginx reports. */
  nameOf(upstream: string | null): ProcessName | null;
  start(name: ProcessName): Promise<void>;
  /** Sends the signal and waits for the exit; answers the exit code. */
  stop(name: ProcessName, signal: NodeJS.Signals): Promise<number | null>;
  accessLog(): string[];
  storage: 's3' | 'shared folder';
  close(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  await requireServices();
  if (!existsSync('dist/server-main.mjs')) throw new Error('dist/server-main.mjs is missing: run `npm run build` first');
  for (const port of [NGINX_PORT, BASE_PORT + 1, BASE_PORT + 2, SMTP_PORT]) {
    if (await portAnswers('127.0.0.1', port)) throw new Error(`port ${port} is taken (a cluster test still running?): stop it, or set CLUSTER_PORT`);
  }
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(path.join(WORK, 'nginx'), { recursive: true });

  const dbName = `kindred_cluster_${process.pid}_${Date.now() % 100000}`;
  const admin = new pg.Client({ connectionString: `${DATABASE_SERVER}/postgres` });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  await admin.end();
  const databaseUrl = `${DATABASE_SERVER}/${dbName}`;
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  redis.disconnect();

  const mail = startMail();
  await mail.listen();

  const children: ChildProcess[] = [];
  const storageEnv: Record<string, string> = { UPLOAD_DIR: path.join(WORK, 'uploads') };
  let storage: Cluster['storage'] = 'shared folder';
  if (existsSync(S3_SCRIPT)) {
    // Issue 29 part 1: the S3-compatible test server; the processes get the settings it prints.
    mkdirSync(path.join(WORK, 's3'), { recursive: true });
    const s3 = spawn(process.execPath, [S3_SCRIPT, '--port', String(S3_PORT), '--bucket', 'kindred-cluster', '--dir', path.join(WORK, 's3')], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(s3);
    const printed = await new Promise<string>((resolve, reject) => {
      let out = '';
      s3.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (/^READY$/m.test(out)) resolve(out);
      });
      s3.once('exit', (code) => reject(new Error(`${S3_SCRIPT} exited (${code}) before READY:\n${out}`)));
    });
    for (const line of printed.split('\n')) {
      const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (m) storageEnv[m[1] as string] = m[2] as string;
    }
    storage = 's3';
  }

  // The site's public origin is nginx by the machine's name: the payment provider never calls a webhook
  // on localhost or 127.x (webhookFor in src/server/payments/payments.service.ts).
  const hostName = os.hostname();
  const env = (name: ProcessName, port: number): NodeJS.ProcessEnv => ({
    ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, REDIS_URL, SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}`,
    DATA_DIR: path.join(WORK, `data-${name}`), NODE_ENV: 'production', DEPLOYMENT: 'demo', SEED_PROFILES: '40', LOG_LEVEL: 'warn',
    TRUST_PROXY: '1', SITE_ORIGINS: `kindred=http://${hostName}:${NGINX_PORT}`, METRICS_TOKEN, JOB_LEASE_MS: String(JOB_LEASE_MS), DRAIN_TIMEOUT_MS: '10000',
    // 50 chat messages a second from two members stay under the per-member limit; logins keep theirs (LOGIN_ACCOUNT_FAILURES).
    RATE_LIMIT_FACTOR: '100', LOGIN_IP_FAILURES: '100000', IMAGE_SCORER: 'fake', ...storageEnv,
  });
  const processes: Record<ProcessName, AppProcess> = {
    a: { name: 'a', port: BASE_PORT + 1, child: null, exited: Promise.resolve(null) },
    b: { name: 'b', port: BASE_PORT + 2, child: null, exited: Promise.resolve(null) },
  };
  const direct = (name: ProcessName, pathname: string) => `http://127.0.0.1:${processes[name].port}${pathname}`;

  async function start(name: ProcessName) {
    const p = processes[name];
    const child = spawn(process.execPath, ['dist/server-main.mjs'], { env: env(name, p.port), stdio: ['ignore', 'inherit', 'inherit'] });
    p.child = child;
    p.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`process ${name} exited with ${child.exitCode} while starting`);
      const ready = await fetch(direct(name, '/readyz')).then((r) => r.status === 200, () => false);
      if (ready) return;
      await sleep(250);
    }
    throw new Error(`process ${name} was not ready within 90 s`);
  }
  async function stop(name: ProcessName, signal: NodeJS.Signals) {
    const p = processes[name];
    p.child?.kill(signal);
    const code = await p.exited;
    p.child = null;
    return code;
  }

  // One after the other: the first migrates and seeds the empty database.
  await start('a');
  await start('b');

  const hostAddresses = (await lookup(hostName, { all: true }).catch(() => []))
    .map((a) => (a.family === 6 ? `[${a.address}]` : a.address)).filter((a) => a !== '127.0.0.1' && a !== '[::1]');
  writeFileSync(path.join(WORK, 'nginx', 'nginx.conf'), nginxConfig([processes.a.port, processes.b.port], [...new Set(hostAddresses)]));
  const nginx = spawn(NGINX, ['-p', path.join(WORK, 'nginx'), '-e', path.join(WORK, 'nginx', 'error.log'), '-c', path.join(WORK, 'nginx', 'nginx.conf')], { stdio: ['ignore', 'inherit', 'inherit'] });
  const nginxExited = new Promise((resolve) => nginx.once('exit', resolve));
  children.push(nginx);
  for (let i = 0; i < 40 && !(await portAnswers('127.0.0.1', NGINX_PORT)); i++) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}: ${readFileSync(path.join(WORK, 'nginx', 'error.log'), 'utf8')}`);
    await sleep(250);
  }

  const db = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  const byPort = new Map([[`127.0.0.1:${processes.a.port}`, 'a' as const], [`127.0.0.1:${processes.b.port}`, 'b' as const]]);
  return {
    url: `http://localhost:${NGINX_PORT}`,
    namedUrl: `http://${hostName}:${NGINX_PORT}`,
    processes,
    db,
    mail,
    direct,
    // nginx lists every upstream it tried ("a, b" after a failover): the last one answered.
    nameOf: (upstream) => (upstream ? byPort.get(upstream.split(',').pop()?.trim() ?? '') ?? null : null),
    start,
    stop,
    storage,
    accessLog: () => (existsSync(path.join(WORK, 'nginx', 'access.log')) ? readFileSync(path.join(WORK, 'nginx', 'access.log'), 'utf8').trim().split('\n') : []),
    async close() {
      await Promise.all((['a', 'b'] as const).map((name) => (processes[name].child ? stop(name, 'SIGTERM') : null)));
      nginx.kill('SIGQUIT');
      await Promise.race([nginxExited, sleep(5000)]);
      for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
      await mail.close();
      await db.end();
      const dropper = new pg.Client({ connectionString: `${DATABASE_SERVER}/postgres` });
      await dropper.connect();
      await dropper.query(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
      await dropper.end();
    },
  };
}
