import { grantStaffRole } from './admin/staff.service';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApiNodeListener } from './api/node-listener';
import { type AppContext, createAppContext } from './app-context';
import { type Config, readConfig } from './config';
import { createRequestContext, isSecureRequest, cookieValue, requestEndpoint } from './context/request-context';
import { DEMO_PASSWORD, demoMembers, seedIfEmpty } from './db/seed';
import { fallbackErrorPage } from './errors/fallback-page';
import { baseSecurityHeaders, NON_HTML_CSP } from './security-headers';
import { createJobRunner } from './jobs/jobs';
import { unsubscribeSecret } from './notifications/unsubscribe';
import { type AccountsDeps, describeUser, memberForSession } from './accounts/accounts.service';
import { AUTH_COOKIE } from './api/session';
import { createCompression } from './api/compression';
import { StaticLayer } from './static/static-layer';
import { keepVisitTracking } from './tracking/tracking.service';
import { createUploadHandler } from './static/uploads';
import { NOT_FOUND, pageRequestProblem, REQUEST_ERROR_PATH } from './pages/request-guard';
import { preloadGeocoder } from './geo/geocode.service';
import { createPageCache } from './pages/page-cache';
import { memberPageLoader, pageInputsDigest } from './pages/member-page-data';
import { FrameStore, sendFramed } from './pages/framed-page';
import { getT } from '../shared/i18n';
import { inTimeBonusWindow } from '../shared/constants';
import { createOps } from './ops/ops';

type AstroHandler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void, locals: object) => Promise<void>;

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
 * The one process: static files from memory, /api to Hono, /uploads from the upload store (folder or S3), the rest to Astro.
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
  const astro = await loadAstroHandler();
  // HTML pages replace the CSP with one that lists their inline scripts (src/middleware.ts).
  const accounts: AccountsDeps = { app, mailer: app.mailer, limits: app.limits };
  const compress = createCompression();
  // Member pages sent again while nothing they show can have changed (SQLite; src/server/pages/page-cache.ts).
  const pages = createPageCache(app.db, app.clock, config.pageCacheMs);
  // Layouts of member pages kept to put fresh bodies in (src/server/pages/member-frame.ts).
  const frames = config.memberFrames ? new FrameStore() : null;
  const api = createApiNodeListener(app, (req, res, next) => void compress(req as never, res as never, next));
  const securityHeaders = (secure: boolean) => ({ ...baseSecurityHeaders(secure), 'Content-Security-Policy': NON_HTML_CSP });
  const headersBySecurity = { true: securityHeaders(true), false: securityHeaders(false) };

  // /healthz, /readyz and /metrics for balancers and Prometheus (any host); request metrics; the drain.
  const ops = createOps(app);
  const server = createServer((req, res) => {
    if (ops.handle(req, res)) return;
    const endpoint = requestEndpoint(
      { headers: req.headers, remoteAddress: req.socket.remoteAddress, encrypted: Boolean((req.socket as { encrypted?: boolean }).encrypted) },
      config,
    );
    // Production answers only the hosts its sites list: no silent fallback to a default site.
    if (!app.sites.knowsHost(endpoint.host)) {
      res.writeHead(421, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headersBySecurity.false });
      return void res.end('Misdirected request: unknown host');
    }
    const url = req.url ?? '/';
    const secure = isSecureRequest(app.sites, endpoint);
    // Tracking params (network, ref, sub1–3) and landers are kept for the visit in a first-party cookie.
    if (!url.startsWith('/api/')) keepVisitTracking(req, res, secure);
    if (staticLayer.handle(req, res, endpoint)) return;
    for (const [name, value] of Object.entries(secure ? headersBySecurity.true : headersBySecurity.false)) res.setHeader(name, value);
    if (url.startsWith('/api/') || url === '/api') return api(req, res, endpoint);
    const ctx = createRequestContext(app.sites, { headers: req.headers }, config, endpoint);
    if (url.startsWith('/uploads/')) return void uploads(req, res);
    const fail = (err: unknown) => {
      app.logger.error({ err, url }, 'page failed');
      if (res.headersSent) return void res.end();
      if (err === undefined) err = new Error(`no route answered ${url}`);
      res.writeHead(500, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(fallbackErrorPage(ctx.locale, config.production ? null : String((err as Error)?.stack ?? err)));
    };
    // Astro answers an empty 500 when even its error page failed: show the spec's fallback page instead.
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      const headers = rest.find((r) => r && typeof r === 'object') as Record<string, unknown> | undefined;
      const length = headers && Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-length')?.[1];
      const typed = res.hasHeader('content-type') || (headers && Object.keys(headers).some((k) => k.toLowerCase() === 'content-type'));
      if (status >= 500 && (length === '0' || !typed)) {
        res.writeHead = writeHead as typeof res.writeHead;
        const body = fallbackErrorPage(ctx.locale, null);
        writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
        res.write = () => true;
        res.end = (() => res) as typeof res.end;
        return res;
      }
      return writeHead(status, ...rest);
    }) as typeof res.writeHead;
    // Bad input never reaches a page: the error page answers with its 4xx (src/middleware.ts).
    // A path Astro could not even decode is swapped for one it can route.
    const pageProblem = pageRequestProblem(req) ?? undefined;
    if (pageProblem) req.url = REQUEST_ERROR_PATH;
    const token = cookieValue(req.headers.cookie, AUTH_COOKIE);
    // A form post (login, signup without JavaScript …) is answered once its writes are on disk.
    if (req.method !== 'GET' && req.method !== 'HEAD') holdEndUntilDurable(res, app);
    const cacheKey = pages && !pageProblem ? pages.keyOf(req, { siteId: ctx.site.id, secure, locale: ctx.locale, country: ctx.country, token }) : null;
    memberForSession(accounts, ctx.site, token)
      .then(async (member) => {
        const user = member ? await describeUser(accounts, ctx.site, member.user, member) : null;
        // A member whose exact page is cached gets it again; the session was looked up (and is still valid)
        // first. Not during the time bonus: its countdown is set from the server clock of the render.
        const cacheable = cacheKey !== null && user !== null && !inTimeBonusWindow(user, app.clock.now());
        const locals: App.Locals = { ctx, t: getT(ctx.locale), user, sessionRow: member?.user, services: { app, accounts }, pageProblem };
        // A member's page may also be made from its kept layout and a fresh body (src/server/pages/member-frame.ts),
        // for a signed-in member's GET without bad input.
        const pathname = url.split('?', 1)[0] ?? url;
        const framed = frames !== null && user !== null && req.method === 'GET' && !pageProblem;
        const loader = cacheable || framed ? memberPageLoader(pathname) : null;
        let started: string | null = null;
        if (cacheable && pages && cacheKey !== null) {
          // Read before anything of the view: a render that began at this version is exact while it stays.
          // (Skipped where the stored render can only match by its inputs: the database changed while it
          // rendered; what is rendered now is then kept by its inputs only, for at most PAGE_CACHE_MS.)
          started = pages.versionUseful(cacheKey) ? await pages.version() : null;
          if (pages.serve(cacheKey, res, { version: started })) return;
        }
        // Load what the page shows (something was written since, or there is no page cache): the same inputs
        // give the same page. A load that fails is left to the page, which loads again and fails into Astro's
        // error page.
        const loaded = loader ? await loader.load(locals, new URL(url, 'http://page')).then((value) => ({ value }), () => null) : null;
        if (loader && loaded) locals.pageData = { route: loader.route, value: loaded.value };
        if (cacheable && pages && cacheKey !== null) {
          const digest = locals.pageData ? pageInputsDigest(user, locals.pageData) : null;
          if (digest !== null && pages.serve(cacheKey, res, { digest })) return;
          pages.record(cacheKey, res, { started, digest });
        }
        if (framed && user && frames && locals.pageData && (await sendFramed(frames, req, res, locals, user, url, pathname))) return;
        compress(req as never, res as never, () =>
          (async () => {
            // A path no route matches (Astro hands it back without an error): the 404 page, once.
            const unrouted = (err?: unknown) => {
              if (err !== undefined || res.headersSent || req.url === REQUEST_ERROR_PATH) return fail(err);
              req.url = REQUEST_ERROR_PATH;
              return void astro(req, res, fail, { ...locals, pageProblem: NOT_FOUND }).catch(fail);
            };
            return astro(req, res, unrouted, locals);
          })().catch(fail),
        );
      })
      .catch(fail);
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

/** Delays the end of a response until the database says every write before it is on disk. */
function holdEndUntilDurable(res: ServerResponse, app: AppContext) {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    app.db.durable().then(() => end(...args), (err) => {
      app.logger.error({ err }, 'could not make a write durable');
      res.destroy(err as Error);
    });
    return res;
  }) as typeof res.end;
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
