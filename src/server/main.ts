import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { grantStaffRole } from './admin/staff.service';
import { createCompression } from './api/compression';
import { createApiNodeListener } from './api/node-listener';
import { type AppContext, createAppContext } from './app-context';
import { type Config, readConfig } from './config';
import { createRequestContext, isSecureRequest, requestEndpoint } from './context/request-context';
import { DEMO_PASSWORD, demoMembers, seedIfEmpty } from './db/seed';
import { fallbackErrorPage } from './errors/fallback-page';
import { preloadGeocoder } from './geo/geocode.service';
import { createJobRunner } from './jobs/jobs';
import { unsubscribeSecret } from './notifications/unsubscribe';
import { type AstroHandler, createPageSteps, type PageExchange } from './pages/page-steps';
import { pipeline } from './request-pipeline';
import { baseSecurityHeaders, NON_HTML_CSP } from './security-headers';
import { StaticLayer } from './static/static-layer';
import { createUploadHandler } from './static/uploads';
import { keepVisitTracking } from './tracking/tracking.service';
import { createOps } from './ops/ops';

/** Security headers of every answer but the static files' (pages replace the CSP with their own). */
const nonHtmlHeaders = (secure: boolean) => ({ ...baseSecurityHeaders(secure), 'Content-Security-Policy': NON_HTML_CSP });

export interface RunningServer {
  server: Server;
  app: AppContext;
  url: string;
  close(): Promise<void>;
  /** SIGTERM: stop accepting, send event streams away, finish what is in flight (src/server/ops/drain.ts), close. */
  drain(): Promise<void>;
}

/** Loads Astro's server build (middleware mode) from dist/server. */
async function loadAstroHandler(): Promise<AstroHandler> {
  const entry = path.resolve(process.env.ASTRO_ENTRY ?? 'dist/server/entry.mjs');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const mod = (await import(pathToFileURL(entry).href)) as { handler: AstroHandler };
  return mod.handler;
}

/**
 * The one process: every request runs through these steps in order until one answers
 * (src/server/request-pipeline.ts).
 */
export async function startServer(config: Config = readConfig(), overrides: Partial<AppContext> = {}): Promise<RunningServer> {
  const app = await createAppContext(config, overrides);
  // Said once at start; /readyz asks storage.check() again (an unreachable store does not stop the start).
  await app.storage.check().then(
    () => app.logger.info({ storage: app.storage.description }, 'upload storage reachable'),
    (err) => app.logger.warn({ err, storage: app.storage.description }, 'upload storage unreachable: uploads fail until it answers'),
  );
  if (config.seedOnEmpty) await seedIfEmpty(app);
  for (const staff of config.staffEmails) await grantStaffRole(app, staff.siteId, staff.email, staff.role);

  const staticLayer = new StaticLayer(config.clientDir, app.sites, config);
  const loaded = staticLayer.load();
  app.logger.info({ files: loaded }, 'static files in memory');
  const uploads = createUploadHandler(app);
  const compress = createCompression();
  // /healthz, /readyz and /metrics for balancers and Prometheus (any host); request metrics; the drain.
  const ops = createOps(app);
  const around = (req: IncomingMessage, res: ServerResponse, next: () => void) => void compress(req as never, res as never, next);
  const api = createApiNodeListener(app, around);
  const pages = createPageSteps(app, config, await loadAstroHandler(), around);
  // HTML pages replace the CSP with one that lists their inline scripts (src/middleware.ts).
  const headersBySecurity = { true: nonHtmlHeaders(true), false: nonHtmlHeaders(false) };

  const handle = pipeline(
    {
      // Production answers only the hosts its sites list: no silent fallback to a default site.
      hostCheck: ({ res, endpoint }) => {
        if (app.sites.knowsHost(endpoint.host)) return false;
        res.writeHead(421, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headersBySecurity.false });
        res.end('Misdirected request: unknown host');
        return true;
      },
      // Tracking params (network, ref, sub1–3) and landers are kept for the visit in a first-party cookie;
      // files of the build come from memory.
      staticFiles: ({ req, res, url, endpoint, secure }) => {
        if (!url.startsWith('/api/')) keepVisitTracking(req, res, secure);
        return staticLayer.handle(req, res, endpoint);
      },
      securityHeaders: ({ res, secure }) => {
        for (const [name, value] of Object.entries(secure ? headersBySecurity.true : headersBySecurity.false)) res.setHeader(name, value);
        return false;
      },
      api: ({ req, res, url, endpoint }) => {
        if (!url.startsWith('/api/') && url !== '/api') return false;
        api(req, res, endpoint);
        return true;
      },
      uploads: ({ req, res, url }) => {
        if (!url.startsWith('/uploads/')) return false;
        void uploads(req, res);
        return true;
      },
      memberPages: pages.memberPages,
      astroPages: pages.astroPages,
    },
    // A step that failed: the spec's fallback page (Astro's own error page is src/pages/500.astro).
    (exchange: PageExchange, step, err) => {
      const { req, res, url } = exchange;
      app.logger.error({ err, url, step }, 'page failed');
      if (res.headersSent) return void res.end();
      const locale = exchange.locals?.ctx.locale ?? createRequestContext(app.sites, { headers: req.headers }, config, exchange.endpoint).locale;
      res.writeHead(500, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(fallbackErrorPage(locale, config.production ? null : String((err as Error)?.stack ?? err)));
    },
  );
  const server = createServer((req, res) => {
    if (ops.handle(req, res)) return;
    const endpoint = requestEndpoint(
      { headers: req.headers, remoteAddress: req.socket.remoteAddress, encrypted: Boolean((req.socket as { encrypted?: boolean }).encrypted) },
      config,
    );
    handle({ req, res, url: req.url ?? '/', endpoint, secure: isSecureRequest(app.sites, endpoint) });
  });

  // Erasure of deleted accounts, event pruning and notification mails run from the job runner
  // (src/server/jobs): queued in the database, so they survive restarts and run once across processes.
  const jobs = createJobRunner(app);
  // The unsubscribe key exists from the first start, as the VAPID keys do.
  await unsubscribeSecret(app.db.db);
  if (config.jobsEnabled) jobs.start();

  // Idle keep-alive connections stay open longer than a load balancer's (60 s) or a client's pool keeps
  // them: with Node's 5 s a client reusing a connection just as the server closes it gets a reset
  // ("socket hang up", a 502 behind a balancer).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  // The offline city index takes a moment to build: do it now rather than on the first geocode request.
  setImmediate(() => {
    try {
      preloadGeocoder();
    } catch (err) {
      app.logger.error({ err }, 'geocoder preload failed');
    }
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://localhost:${port}`;
  return {
    server,
    app,
    url,
    async drain() {
      await ops.drain(server, () => jobs.stop());
      await app.close();
    },
    async close() {
      ops.close();
      await jobs.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Event streams never end by themselves.
      server.closeAllConnections();
      await closed;
      await app.close();
    },
  };
}

const entryScript = process.argv[1] ? path.basename(process.argv[1]) : "";
const isMain = ["server-main.mjs", "start.mjs", "e2e-server.mjs", "main.ts"].includes(entryScript);
if (isMain) {
  const running = await startServer();
  running.app.logger.info(`Kindred is listening on ${running.url}`);
  if (!running.app.config.production) {
    const logins = running.app.sites.sites.flatMap((site) => demoMembers(site).map((m) => `${site.name}: ${m.email}`));
    running.app.logger.info(`Demo logins (password ${DEMO_PASSWORD}): ${logins.join(' · ')}`);
  }
  const stop = () => running.drain().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
