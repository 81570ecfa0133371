import { Hono } from 'hono';
import { getT } from '../../shared/i18n';
import type { AppContext } from '../app-context';
import { createRequestContext } from '../context/request-context';
import { jsonError } from './http-errors';
import { limitBody } from './request-body';
import { siteRoutes } from './routes/site.routes';
import { PHOTO_MAX_BYTES } from '../photos/photos.service';
import { accountRoutes } from './routes/account.routes';
import { photoRoutes } from './routes/photo.routes';
import { profileRoutes } from './routes/profile.routes';
import { geoRoutes } from './routes/geo.routes';
import { chatRoutes } from './routes/chat.routes';
import { paymentRoutes } from './routes/payments.routes';
import { landerRoutes } from './routes/lander.routes';
import { adminRoutes } from './routes/admin.routes';
import { notificationRoutes } from './routes/notifications.routes';
import { recordDailyActive } from '../admin/stats.service';
import { sessionMiddleware } from './session';
import { visitTracking } from '../tracking/tracking.service';
import { IMAGE_UPLOAD_PATHS, requireSameOriginJson } from './security';
import type { ApiEnv } from './types';

/** The JSON API under /api, at the spec's .php paths. */
export function createApi(app: AppContext) {
  const api = new Hono<ApiEnv>().basePath('/api');

  // An answer leaves only once every write made before it is on disk (SQLite's group commit; at once
  // on PostgreSQL). Reads wait too when others wrote meanwhile: a payment-status read may credit.
  api.use('*', async (_c, next) => {
    await next();
    await app.db.durable();
  });

  api.use('*', async (c, next) => {
    const incoming = c.env?.incoming;
    const ctx = createRequestContext(
      app.sites,
      {
        headers: incoming?.headers ?? Object.fromEntries(c.req.raw.headers),
        remoteAddress: incoming?.socket?.remoteAddress,
        encrypted: Boolean((incoming?.socket as { encrypted?: boolean } | undefined)?.encrypted),
      },
      app.config,
    );
    if (!ctx.knownHost) return c.json({ error: 'unknown_host' }, 421);
    // A page's in-process call carries the visitor's address and country (payment-country evidence).
    const page = incoming ? undefined : c.env?.page;
    if (page) Object.assign(ctx, { ip: page.ip, country: page.country });
    c.set('ctx', ctx);
    // Requests made in-process by the tests have no socket; they may name their address.
    c.set('ip', ctx.ip ?? (incoming ? null : (c.req.header('x-test-ip') ?? null)));
    c.set('t', getT(ctx.locale));
    c.header('Cache-Control', 'no-store');
    // Tracking params passed along to the API (settings, search) keep the visit's source like a page URL does.
    const tracking = visitTracking(new URL(c.req.url), c.req.header('cookie'), ctx.secure);
    c.set('tracking', tracking.tracking);
    if (tracking.setCookie) c.header('Set-Cookie', tracking.setCookie, { append: true });
    await next();
  });
  api.use('*', requireSameOriginJson());
  const tooLarge = (c: unknown) => jsonError(c as never, 413, 'payload_too_large', 'error.too_large');
  const jsonLimit = limitBody({ maxSize: app.config.bodyLimitBytes, onError: tooLarge });
  const photoLimit = limitBody({ maxSize: PHOTO_MAX_BYTES, onError: tooLarge });
  api.use('*', (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    return (IMAGE_UPLOAD_PATHS.has(c.req.path) ? photoLimit : jsonLimit)(c, next);
  });

  // Every call knows its member (one query when a session cookie is present, none otherwise).
  api.use('*', sessionMiddleware({ app, mailer: app.mailer, limits: app.limits }));
  // Daily active members for the operator console's dashboard (one write per member and day).
  api.use('*', async (c, next) => {
    const user = c.var.user;
    if (user && user.role === 'member') recordDailyActive(app.db, user.site_id, user.id, app.clock.now());
    await next();
  });

  api.route('/', siteRoutes(app));
  api.route('/', accountRoutes(app));
  api.route('/', photoRoutes(app));
  api.route('/', profileRoutes(app));
  api.route('/', geoRoutes(app));
  api.route('/', chatRoutes(app));
  api.route('/', paymentRoutes(app));
  api.route('/', landerRoutes(app));
  api.route('/', adminRoutes(app));
  api.route('/', notificationRoutes(app));

  api.notFound((c) => jsonError(c, 404, 'not_found', 'error.api_not_found'));
  api.onError((err, c) => {
    app.logger.error({ err, url: c.req.url }, 'api error');
    if (!c.var.t) c.set('t', getT('en'));
    return jsonError(c, 500, 'server_error', 'error.try_later');
  });
  return api;
}
