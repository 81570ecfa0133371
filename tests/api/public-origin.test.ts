import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppContext } from '../../src/server/app-context';
import { readConfig } from '../../src/server/config';
import { seedIfEmpty } from '../../src/server/db/seed';
import { loadSites, SiteRegistry } from '../../src/server/sites/site-registry';
import { createTestApp, DIALECTS, openTestDatabase, type TestApp } from '../helpers/test-app';

const PASSWORD = 'correct horse battery';
const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST', headers: { 'content-type': 'application/json', cookie: 'lang=en', ...headers }, body: JSON.stringify(body),
});
// Every way a request can name a host it did not come from.
const POISON = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', forwarded: 'host=evil.example' };

/** Every absolute link in the mails to `to`. */
async function linksTo(t: TestApp, to: string): Promise<string[]> {
  const mails = await t.app.db.db.selectFrom('mails').select(['text', 'html']).where('to_address', '=', to).execute();
  // Links: every address in the text part, and every href/src of the HTML part (not its XML namespaces).
  return mails.flatMap((m) => [
    ...[...m.text.matchAll(/https?:\/\/[^\s"'<>]+/g)].map((x) => x[0]),
    ...[...(m.html ?? '').matchAll(/\b(?:href|src)="(https?:\/\/[^"]+)"/g)].map((x) => x[1]),
  ]);
}

async function signup(t: TestApp, email: string, host: string, headers: Record<string, string> = {}) {
  const res = await t.request('/api/signup.php', { host, ...json({ email, name: email.split('@')[0].replace(/\W/g, ''), password: PASSWORD, date_of_birth: '1990-05-01', gender: 'male' }, headers) });
  expect(res.status).toBe(200);
  return `${res.headers.get('set-cookie')!.split(';')[0]}; lang=en`;
}

for (const dialect of DIALECTS) {
  describe(`links in mails come from the site's configured origin (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => { t = await createTestApp(dialect, { TRUST_PROXY: '0', AFFILIATE_API_KEY: 'k' }); });
    afterAll(async () => { await t?.close(); });

    it('activation, reset, mail change, reactivation and affiliate links ignore a poisoned Host header', async () => {
      // A demo deployment maps the unknown host to the default site; its links still use that site's origin.
      const cookie = await signup(t, 'victim@example.com', 'evil.example', POISON);
      await t.request('/api/resend-activation.php', { host: 'evil.example', ...json({}, { ...POISON, cookie }) });
      await t.request('/api/reset-password.php', { host: 'evil.example:4321', ...json({ email: 'victim@example.com' }, POISON) });
      await t.request('/api/mail-change.php', { host: 'evil.example', ...json({ email: 'victim2@example.com', password: PASSWORD }, { ...POISON, cookie }) });
      const del = await t.request('/api/delete-account.php', { host: 'evil.example', ...json({ password: PASSWORD }, { ...POISON, cookie }) });
      expect(del.status).toBe(200);
      const links = [...(await linksTo(t, 'victim@example.com')), ...(await linksTo(t, 'victim2@example.com'))];
      for (const kind of ['activate.php', 'reset-password/do', 'mail-change/do', 'reactivate.php']) {
        expect(links.some((l) => l.includes(kind)), kind).toBe(true);
      }
      for (const link of links) expect(new URL(link).origin).toBe('http://localhost:4321');

      const affiliate = await t.request('/api/affiliate/signup.php', { host: 'evil.example', ...json({ email: 'partner@example.com' }, { ...POISON, 'x-api-key': 'k' }) });
      expect(affiliate.status).toBe(201);
      expect(new URL((await affiliate.json()).url).origin).toBe('http://localhost:4321');
    });

    it('a site\'s own host gives that site\'s origin, with SITE_ORIGINS taking precedence', async () => {
      await signup(t, 'gay@example.com', 'gay.localhost:9999', POISON);
      const own = await linksTo(t, 'gay@example.com');
      expect(own.length).toBeGreaterThan(0);
      for (const link of own) expect(new URL(link).origin).toBe('http://gay.localhost:4321');
      const custom = await createTestApp(dialect, { SITE_ORIGINS: 'maennerhafen=https://www.maennerhafen.example' });
      try {
        await signup(custom, 'mann@example.com', 'gay.localhost', POISON);
        const links = await linksTo(custom, 'mann@example.com');
        expect(links.length).toBeGreaterThan(0);
        for (const link of links) expect(new URL(link).origin).toBe('https://www.maennerhafen.example');
      } finally {
        await custom.close();
      }
    });
  });

  describe(`production deployment (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => { t = await createTestApp(dialect, { DEPLOYMENT: 'production', NODE_ENV: 'production' }); });
    afterAll(async () => { await t?.close(); });

    it('answers an unknown host with 421 and no site', async () => {
      const unknown = await t.request('/api/settings.php', { host: 'evil.example' });
      expect(unknown.status).toBe(421);
      const signupOnUnknown = await t.request('/api/signup.php', { host: 'evil.example', ...json({ email: 'x@example.com' }) });
      expect(signupOnUnknown.status).toBe(421);
      expect((await t.request('/api/settings.php', { host: 'kindred.example' })).status).toBe(200);
      expect((await t.request('/api/settings.php', { host: 'www.rijpedates.example' })).status).toBe(200);
    });

    it("answers the demo's hosts from the site YAML (localhost, *.localhost, 127.0.0.1) with 421", async () => {
      for (const host of ['localhost', 'localhost:4321', 'kindred.localhost', 'gay.localhost', 'rijpe.localhost', '127.0.0.1']) {
        expect((await t.request('/api/settings.php', { host })).status, host).toBe(421);
      }
    });

    it('mails the configured https origin, and marks cookies Secure', async () => {
      const res = await t.request('/api/signup.php', {
        host: 'maennerhafen.example',
        ...json({ email: 'prod@example.com', name: 'Prod', password: PASSWORD, date_of_birth: '1990-05-01', gender: 'male' }, POISON),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toMatch(/;\s*Secure/i);
      const links = await linksTo(t, 'prod@example.com');
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) expect(new URL(link).origin).toBe('https://maennerhafen.example');
    });

    it('never seeds the demo logins, and seeds nothing unless asked', async () => {
      expect(t.app.config.seedOnEmpty).toBe(false);
      const { handle, drop } = await openTestDatabase(dialect);
      try {
        const config = readConfig({ DEPLOYMENT: 'production', SEED_ON_EMPTY: '1', SEED_PROFILES: '20', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'kindred-prod-')) });
        const app = await createAppContext(config, { db: handle, logger: pino({ level: 'silent' }) });
        await seedIfEmpty(app);
        const users = await handle.db.selectFrom('users').select('email').execute();
        expect(users).toEqual([]);
      } finally {
        await drop();
      }
    });
  });
}

describe('site origins', () => {
  const sites = loadSites();
  it('refuses to start a production deployment without an https origin for every site', () => {
    const without = sites.map((s) => (s.id === 'rijpe-dates' ? { ...s, public_origin: undefined } : s));
    expect(() => new SiteRegistry(without, { deployment: 'production', port: 443, siteOrigins: {} })).toThrow(/rijpe-dates/);
    expect(() => new SiteRegistry(sites, { deployment: 'production', port: 443, siteOrigins: { kindred: 'http://kindred.example' } })).toThrow(/kindred/);
    expect(() => new SiteRegistry(without, { deployment: 'production', port: 443, siteOrigins: { 'rijpe-dates': 'https://rijpe.nl' } })).not.toThrow();
  });

  it('uses the local domains and port in a demo', () => {
    const registry = new SiteRegistry(sites, { deployment: 'demo', port: 4399, siteOrigins: {} });
    expect(sites.map((s) => registry.origin(s)).sort()).toEqual(['http://gay.localhost:4399', 'http://localhost:4399', 'http://rijpe.localhost:4399']);
    expect(registry.knowsHost('evil.example')).toBe(true);
    const production = new SiteRegistry(sites, { deployment: 'production', port: 443, siteOrigins: {} });
    expect(production.knowsHost('evil.example')).toBe(false);
    expect(production.knowsHost(null)).toBe(false);
    expect(production.knowsHost('KINDRED.example:443')).toBe(true);
  });

  it('reads DEPLOYMENT, falling back to NODE_ENV', () => {
    expect(readConfig({ NODE_ENV: 'production' }).deployment).toBe('production');
    expect(readConfig({ NODE_ENV: 'production', DEPLOYMENT: 'demo' }).production).toBe(false);
    expect(readConfig({}).deployment).toBe('demo');
    expect(() => readConfig({ DEPLOYMENT: 'staging' })).toThrow(/DEPLOYMENT/);
    expect(() => readConfig({ SITE_ORIGINS: 'kindred=ftp://x' })).toThrow(/SITE_ORIGINS/);
  });
});
