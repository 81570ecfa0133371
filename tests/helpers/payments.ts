import { type AddressInfo, createServer } from 'node:net';
import { serve } from '@hono/node-server';
import { createApi } from '../../src/server/api/app';
import type { Dialect } from '../../src/server/db/database';
import { createTestApp, type TestApp } from './test-app';

/**
 * Serves the test app's API on a real port, so the local provider's webhook calls (made over HTTP,
 * exactly as Mollie makes them) reach it. Requests sent with `host` = the returned host get that
 * origin in their callback URLs.
 */
export async function serveApi(t: TestApp, port = 0): Promise<{ host: string; origin: string; close(): Promise<void> }> {
  const server = serve({ fetch: createApi(t.app).fetch, port, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    origin: `http://${host}`,
    close: () => new Promise<void>((resolve) => {
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

/** A free local port, so the app can be told its public origin before it listens there. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Follows the local checkout: opens the page, picks an outcome (and bank), returns where it sends the buyer. */
export async function completeLocalCheckout(checkoutUrl: string, outcome: string, issuer?: string): Promise<{ page: string; location: string | null; status: number }> {
  const page = await (await fetch(checkoutUrl)).text();
  const body = new URLSearchParams({ outcome, ...(issuer ? { issuer } : {}) });
  const res = await fetch(checkoutUrl, {
    method: 'POST', redirect: 'manual', body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', cookie: 'lang=en' },
  });
  return { page, location: res.headers.get('location'), status: res.status };
}

/**
 * The payment suites' app: links to the provider's checkout and our webhook use the site's configured origin, this
 * API on a real port; the visitor's country comes from a trusted CDN header (GeoIP has nothing for 127.0.0.1).
 */
export async function startPaymentsApp(dialect: Dialect): Promise<{ t: TestApp; server: Awaited<ReturnType<typeof serveApi>> }> {
  const port = await freePort();
  const t = await createTestApp(dialect, { SITE_ORIGINS: `kindred=http://127.0.0.1:${port}`, GEOIP_COUNTRY_HEADER: 'cf-ipcountry' });
  return { t, server: await serveApi(t, port) };
}

/** Ends what startPaymentsApp started. */
export async function stopPaymentsApp({ t, server }: { t: TestApp; server: { close(): Promise<void> } }): Promise<void> {
  await server.close();
  await t.app.payments.close();
  await t.close();
}

/** The last SMS code (direct-debit mandate) sent to a mobile number, from the development mailbox. */
export async function smsCodeFor(t: TestApp, mobile: string): Promise<string> {
  const mail = await t.app.db.db.selectFrom('mails').select('text').where('to_address', '=', `sms:${mobile}`).orderBy('id', 'desc').executeTakeFirstOrThrow();
  return /\b(\d{6})\b/.exec(mail.text)?.[1] ?? '';
}
