import { STAFF_ROLES, type StaffRole } from '../shared/admin.contract';
import path from 'node:path';
import type { StorageConfig } from './storage/storage';

/** Runtime configuration, read once from environment variables (see README). */
/**
 * `demo`: the zero-setup demo (development mailbox, demo data and logins, unknown hosts get the
 * default site, mail links point at the local domains). `production`: none of that.
 */
export type Deployment = 'demo' | 'production';

export interface Config {
  port: number;
  host: string;
  /** DEPLOYMENT; defaults to `production` when NODE_ENV=production, else `demo`. */
  deployment: Deployment;
  /** deployment === 'production'. */
  production: boolean;
  databaseUrl: string;
  redisUrl: string | null;
  smtpUrl: string | null;
  /** SITE_ORIGINS: site id → public origin (`kindred=https://kindred.example,…`), overriding the YAML. */
  siteOrigins: Record<string, string>;
  /** TRUST_PROXY: reverse proxies in front (0: forwarded headers are ignored; `1`/`true`: one). */
  trustProxy: number;
  countryHeader: string | null;
  dataDir: string;
  /** The local upload folder (UPLOAD_DIR, or the path of STORAGE_URL=file:…); unused with S3. */
  uploadDir: string;
  /** Where uploads live: the local folder (default) or an S3-compatible bucket (STORAGE_URL, S3_*). */
  storage: StorageConfig;
  clientDir: string;
  bodyLimitBytes: number;
  /** Multiplies every abuse limit's allowance (RATE_LIMIT_FACTOR, default 1; test runs raise it). */
  rateLimitFactor: number;
  /** How long a process may reuse a session lookup (ms; 0 turns the cache off). */
  sessionCacheMs: number;
  /** Member pages made from a kept layout and a fresh body, without Astro's pipeline (src/server/pages/member-frame.ts); `MEMBER_FRAMES=0` turns it off. */
  memberFrames: boolean;
  logLevel: string;
  seedOnEmpty: boolean;
  seedProfiles: number;
  /** JOBS=0: this process runs no background jobs (another process does). */
  jobsEnabled: boolean;
  /** IMAGE_SCORER: 'model' (nsfwjs) or 'fake' (test runs only: refused in production; docs/safety-images.md). */
  imageScorer: 'model' | 'fake';
  affiliateApiKey: string | null;
  /** site-id:email pairs that get the staff role on start (STAFF_EMAILS). */
  staffEmails: { siteId: string; email: string; role: StaffRole }[];
  /** MOLLIE_API_KEY: live_… or test_…; without it payments go to the local provider. */
  mollieApiKey: string | null;
  /** LOCAL_PAYMENTS=1 allows the local provider in production (never do this on a real site). */
  localPayments: boolean;
  /** SMS gateway for direct-debit codes (SMS_API_URL, SMS_API_KEY, SMS_FROM); without it codes go to the dev mailbox. */
  sms: { url: string; key: string | null; from: string } | null;
  /** METRICS_TOKEN: Bearer token for `/metrics` (Prometheus); without it `/metrics` answers 404. */
  metricsToken: string | null;
  /** DRAIN_TIMEOUT_MS: on SIGTERM, how long requests in flight and the job in hand may take before the process exits anyway. */
  drainTimeoutMs: number;
  /** DRAIN_DELAY_MS: on SIGTERM, how long `/readyz` answers 503 while still accepting, before the listener closes (balancers with active health checks). */
  drainDelayMs: number;
  /** JOB_LEASE_MS: how long a claimed job belongs to its process; past it another process takes it over. */
  jobLeaseMs: number;
}

/** Parses `id=origin` pairs; each origin is reduced to scheme://host[:port] and must be http(s). */
export function parseSiteOrigins(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of (value ?? '').split(',').map((e) => e.trim()).filter(Boolean)) {
    const eq = entry.indexOf('=');
    if (eq < 1) throw new Error(`SITE_ORIGINS: "${entry}" is not site-id=origin`);
    const url = new URL(entry.slice(eq + 1).trim());
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`SITE_ORIGINS: ${url.href} is not http(s)`);
    out[entry.slice(0, eq).trim()] = url.origin;
  }
  return out;
}

/**
 * STORAGE_URL: unset or `file:PATH` → the local folder; `s3://bucket[/prefix]` → an S3-compatible
 * bucket, with S3_ENDPOINT (unset: AWS), S3_REGION (us-east-1), S3_ACCESS_KEY_ID and
 * S3_SECRET_ACCESS_KEY (both or neither: neither uses the SDK's chain, e.g. an instance role) and
 * S3_FORCE_PATH_STYLE (default: on when S3_ENDPOINT is set, as MinIO and most others need).
 */
export function parseStorage(env: NodeJS.ProcessEnv, uploadDir: string): StorageConfig {
  const url = env.STORAGE_URL?.trim();
  if (!url) return { kind: 'local', dir: uploadDir };
  if (url.startsWith('file:')) {
    const dir = url.startsWith('file://') ? new URL(url).pathname : url.slice('file:'.length);
    if (!dir) throw new Error('STORAGE_URL: file: needs a folder, e.g. file:/srv/kindred/uploads');
    return { kind: 'local', dir: path.resolve(decodeURIComponent(dir)) };
  }
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/([^?#]*))?$/.exec(url);
  if (!match) throw new Error(`STORAGE_URL must be file:PATH or s3://bucket[/prefix], not ${url}`);
  const prefix = (match[2] ?? '').split('/').filter(Boolean).join('/');
  const endpoint = env.S3_ENDPOINT?.trim() || null;
  if (endpoint && !/^https?:\/\/[^/]+/.test(endpoint)) throw new Error(`S3_ENDPOINT must be an http(s) URL, not ${endpoint}`);
  const accessKeyId = env.S3_ACCESS_KEY_ID || '';
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || '';
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
  const pathStyle = env.S3_FORCE_PATH_STYLE?.trim();
  if (pathStyle && !['1', '0', 'true', 'false'].includes(pathStyle)) throw new Error(`S3_FORCE_PATH_STYLE must be 1 or 0, not ${pathStyle}`);
  return {
    kind: 's3',
    bucket: match[1],
    prefix: prefix ? `${prefix}/` : '',
    endpoint,
    region: env.S3_REGION?.trim() || 'us-east-1',
    credentials: accessKeyId ? { accessKeyId, secretAccessKey } : null,
    forcePathStyle: pathStyle ? pathStyle === '1' || pathStyle === 'true' : endpoint !== null,
  };
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR ?? 'data');
  const deployment: Deployment = env.DEPLOYMENT === 'demo' || env.DEPLOYMENT === 'production'
    ? env.DEPLOYMENT
    : env.NODE_ENV === 'production' ? 'production' : 'demo';
  if (env.DEPLOYMENT && env.DEPLOYMENT !== deployment) throw new Error(`DEPLOYMENT must be demo or production, not ${env.DEPLOYMENT}`);
  const production = deployment === 'production';
  const imageScorer = env.IMAGE_SCORER === 'fake' ? 'fake' : 'model';
  if (env.IMAGE_SCORER && env.IMAGE_SCORER !== imageScorer) throw new Error(`IMAGE_SCORER must be model or fake, not ${env.IMAGE_SCORER}`);
  // The fake scorer lets test runs mark an image explicit: a production site never runs without the model.
  if (imageScorer === 'fake' && production) throw new Error('IMAGE_SCORER=fake is for test runs only, never in production');
  const storage = parseStorage(env, path.resolve(env.UPLOAD_DIR ?? path.join(dataDir, 'uploads')));
  return {
    port: Number(env.PORT ?? 4321),
    host: env.HOST ?? '0.0.0.0',
    deployment,
    production,
    databaseUrl: env.DATABASE_URL ?? `sqlite:${path.join(dataDir, 'kindred.db')}`,
    redisUrl: env.REDIS_URL || null,
    smtpUrl: env.SMTP_URL || null,
    siteOrigins: parseSiteOrigins(env.SITE_ORIGINS),
    trustProxy: env.TRUST_PROXY === 'true' ? 1 : Math.max(0, Math.min(10, Number.parseInt(env.TRUST_PROXY ?? '0', 10) || 0)),
    countryHeader: env.GEOIP_COUNTRY_HEADER || null,
    dataDir,
    uploadDir: storage.kind === 'local' ? storage.dir : path.resolve(env.UPLOAD_DIR ?? path.join(dataDir, 'uploads')),
    storage,
    clientDir: path.resolve(env.CLIENT_DIR ?? 'dist/client'),
    bodyLimitBytes: Number(env.BODY_LIMIT_BYTES ?? 1024 * 1024),
    rateLimitFactor: Math.max(1, Number(env.RATE_LIMIT_FACTOR ?? 1) || 1),
    sessionCacheMs: Math.max(0, Number(env.SESSION_CACHE_MS ?? 2000) || 0),
    memberFrames: env.MEMBER_FRAMES !== '0',
    logLevel: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    // Production never seeds unless asked, and even then never the demo logins (see seed.ts).
    seedOnEmpty: production ? env.SEED_ON_EMPTY === '1' : env.SEED_ON_EMPTY !== '0',
    seedProfiles: Number(env.SEED_PROFILES ?? 2000),
    jobsEnabled: env.JOBS !== '0',
    imageScorer,
    affiliateApiKey: env.AFFILIATE_API_KEY || null,
    staffEmails: (env.STAFF_EMAILS ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.includes(':'))
      // site:email or site:email:role (default moderator)
      .map((entry) => {
        const [siteId, email, role] = entry.split(':');
        return { siteId, email: email.toLowerCase(), role: (STAFF_ROLES as readonly string[]).includes(role ?? '') ? (role as StaffRole) : 'moderator' };
      }),
    mollieApiKey: env.MOLLIE_API_KEY || null,
    localPayments: env.LOCAL_PAYMENTS === '1',
    sms: env.SMS_API_URL ? { url: env.SMS_API_URL, key: env.SMS_API_KEY || null, from: env.SMS_FROM || 'Kindred' } : null,
    metricsToken: env.METRICS_TOKEN || null,
    drainTimeoutMs: Math.max(0, Number(env.DRAIN_TIMEOUT_MS ?? 25_000) || 0),
    drainDelayMs: Math.max(0, Number(env.DRAIN_DELAY_MS ?? 0) || 0),
    jobLeaseMs: Math.max(1000, Number(env.JOB_LEASE_MS ?? 5 * 60_000) || 5 * 60_000),
  };
}
