import { Hono } from 'hono';
import * as v from 'valibot';
import { LANDER_PROFILES_TTL_MS, LanderProfilesQuerySchema, LanderViewSchema } from '../../../shared/landers.contract';
import type { AppContext } from '../../app-context';
import { VIEWED_MAX } from '../../../shared/tracking';
import { recordFunnelStep } from '../../landers/funnel.service';
import { trackingCookie } from '../../tracking/tracking.service';
import { landerTeasers } from '../../landers/landers.service';
import { jsonError } from '../http-errors';
import { handler } from '../session';
import type { ApiEnv } from '../types';

/** Lander teasers and the lander funnel's view counter. */
export function landerRoutes(app: AppContext) {
  const routes = new Hono<ApiEnv>();

  routes.get('/lander-profiles.php', async (c) => {
    const { network: _n, ref: _r, sub1: _1, sub2: _2, sub3: _3, ...raw } = c.req.query();
    const query = v.safeParse(LanderProfilesQuerySchema, raw);
    if (!query.success) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    const { site, country } = c.var.ctx;
    const result = await landerTeasers(app, site, c.var.user, query.output, country);
    // Visitors' answers are the same for everyone of a country: let the browser reuse them briefly.
    if (!c.var.user) c.header('Cache-Control', `private, max-age=${LANDER_PROFILES_TTL_MS / 1000}`);
    return c.json(result);
  });

  routes.post('/lander-view.php', handler({ member: false, schema: LanderViewSchema }, async (c, body) => {
    // Counted once per visit (the tracking cookie remembers it) and at most LANDER_VIEW_IP per address an hour.
    const tracking = c.var.tracking;
    const seen = `${body.lander}/${body.slug}`;
    if (tracking.viewed?.includes(seen)) return c.body(null, 204);
    await app.abuse.consume('lander_view_ip', c.var.ip);
    // The network is the visit's (cookie or the page's query string), never one the body names.
    await recordFunnelStep(app.db.db, c.var.ctx.site.id, { ...tracking, lander: body.lander, slug: body.slug }, 'views');
    const viewed = [...(tracking.viewed ?? []), seen].slice(-VIEWED_MAX);
    c.header('Set-Cookie', trackingCookie({ ...tracking, viewed }, c.var.ctx.secure), { append: true });
    return c.body(null, 204);
  }));

  return routes;
}
