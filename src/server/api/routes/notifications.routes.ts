import { Hono } from 'hono';
import { jsonBody } from '../request-body';
import type { AppContext } from '../../app-context';
import { unsubscribe } from '../../notifications/unsubscribe';
import { handler } from '../session';
import type { ApiEnv } from '../types';

/**
 * One-click unsubscribe (RFC 8058): the `List-Unsubscribe` URL of every notification mail. Mail
 * providers POST `List-Unsubscribe=One-Click` to it without cookies; the signed token names the
 * member and type. A GET (a client opening the URL) goes to the confirmation page.
 */
export function notificationRoutes(app: AppContext) {
  const routes = new Hono<ApiEnv>();
  routes.get('/unsubscribe.php', (c) => c.redirect(`/unsubscribe?t=${encodeURIComponent(c.req.query('t') ?? '')}`, 303));
  routes.post('/unsubscribe.php', handler({ member: false }, async (c) => {
    let token = c.req.query('t') ?? '';
    if (!token && /json/i.test(c.req.header('content-type') ?? '')) {
      const body = (await jsonBody(c)) as { t?: unknown } | undefined;
      token = typeof body?.t === 'string' ? body.t : '';
    }
    const { type } = await unsubscribe(app, c.var.ctx.site, token.slice(0, 120));
    return c.json({ ok: true, type });
  }));
  return routes;
}
