import path from 'node:path';

/** Runtime configuration, read once from environment variables (see README). */
export interface Config {
  port: number;
  host: string;
  production: boolean;
  databaseUrl: string;
  redisUrl: string | null;
  smtpUrl: string | null;
  publicOrigin: string | null;
  trustProxy: boolean;
  countryHeader: string | null;
  dataDir: string;
  uploadDir: string;
  clientDir: string;
  bodyLimitBytes: number;
  logLevel: string;
  seedOnEmpty: boolean;
  seedProfiles: number;
  affiliateApiKey: string | null;
  /** site-id:email pairs that get the staff role on start (STAFF_EMAILS). */
  staffEmails: { siteId: string; email: string }[];
  /** MOLLIE_API_KEY: live_… or test_…; without it payments go to the local provider. */
  mollieApiKey: string | null;
  /** LOCAL_PAYMENTS=1 allows the local provider in production (never do this on a real site). */
  localPayments: boolean;
  /** SMS gateway for direct-debit codes (SMS_API_URL, SMS_API_KEY, SMS_FROM); without it codes go to the dev mailbox. */
  sms: { url: string; key: string | null; from: string } | null;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR ?? 'data');
  return {
    port: Number(env.PORT ?? 4321),
    host: env.HOST ?? '0.0.0.0',
    production: env.NODE_ENV === 'production',
    databaseUrl: env.DATABASE_URL ?? `sqlite:${path.join(dataDir, 'kindred.db')}`,
    redisUrl: env.REDIS_URL || null,
    smtpUrl: env.SMTP_URL || null,
    publicOrigin: env.PUBLIC_ORIGIN ? env.PUBLIC_ORIGIN.replace(/\/$/, '') : null,
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    countryHeader: env.GEOIP_COUNTRY_HEADER || null,
    dataDir,
    uploadDir: path.resolve(env.UPLOAD_DIR ?? path.join(dataDir, 'uploads')),
    clientDir: path.resolve(env.CLIENT_DIR ?? 'dist/client'),
    bodyLimitBytes: Number(env.BODY_LIMIT_BYTES ?? 1024 * 1024),
    logLevel: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    seedOnEmpty: env.SEED_ON_EMPTY !== '0',
    seedProfiles: Number(env.SEED_PROFILES ?? 2000),
    affiliateApiKey: env.AFFILIATE_API_KEY || null,
    staffEmails: (env.STAFF_EMAILS ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.includes(':'))
      .map((entry) => ({ siteId: entry.slice(0, entry.indexOf(':')), email: entry.slice(entry.indexOf(':') + 1).toLowerCase() })),
    mollieApiKey: env.MOLLIE_API_KEY || null,
    localPayments: env.LOCAL_PAYMENTS === '1',
    sms: env.SMS_API_URL ? { url: env.SMS_API_URL, key: env.SMS_API_KEY || null, from: env.SMS_FROM || 'Kindred' } : null,
  };
}
