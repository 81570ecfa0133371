import { Hono } from 'hono';
import * as v from 'valibot';
import { INTERESTS } from '../../../shared/profile-options';
import { LikeSchema, MATCH_FINDER_MAX_INTERESTS, ProfileIdSchema, ReportSchema, SearchQuerySchema, SwipeSchema } from '../../../shared/profiles.contract';
import { swipe, swipeDeck } from '../../profiles/swipe.service';
import type { AppContext } from '../../app-context';
import * as profiles from '../../profiles/profiles.service';
import { jsonError } from '../http-errors';
import { handler, ruleErrorResponse } from '../session';
import type { ApiEnv } from '../types';
import { TRACKING_PARAMS } from '../../../shared/tracking';

/** Search, profile views, blocks, reports and likes. */
export function profileRoutes(app: AppContext) {
  const routes = new Hono<ApiEnv>();
  routes.get('/search.php', async (c) => {
    const { site } = c.var.ctx;
    const user = c.var.user;
    const network = c.var.tracking.network;
    if (!user && !site.logged_out_search && !(network && site.logged_out_search_trafficsource)) {
      return jsonError(c, 403, 'authentication_required', 'error.authentication_required', { authentication_required: true });
    }
    const query = Object.fromEntries(Object.entries(c.req.query()).filter(([k]) => !(TRACKING_PARAMS as readonly string[]).includes(k)));
    const filters = v.safeParse(SearchQuerySchema, query);
    if (!filters.success) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    // A visitor's answer is the same for every visitor of the site: kept serialised (profiles.service.ts).
    if (!user) return c.body((await profiles.visitorSearchBody(app, site, filters.output)).json, 200, { 'Content-Type': 'application/json' });
    return c.json(await profiles.searchProfiles(app, site, user, filters.output, c.var.member?.extras.profile?.id ?? null));
  });

  routes.get('/member.php', async (c) => {
    const id = Number(c.req.query('id'));
    if (!Number.isSafeInteger(id) || id < 1) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    try {
      const profile = await profiles.profileForViewer(app, c.var.ctx.site, id, c.var.user);
      return profile ? c.json({ profile }) : jsonError(c, 404, 'not_found', 'error.not_found');
    } catch (err) {
      return ruleErrorResponse(c, err);
    }
  });

  routes.post('/block.php', handler({ member: true, schema: ProfileIdSchema }, async (c, body) => {
    await profiles.blockProfile(app, c.var.ctx.site, c.var.user!, body.profile_id);
    return c.json({ blocked: true });
  }));
  routes.delete('/block.php', handler({ member: true, schema: ProfileIdSchema }, async (c, body) => {
    await profiles.unblockProfile(app, c.var.ctx.site, c.var.user!, body.profile_id);
    return c.json({ blocked: false });
  }));
  routes.post('/report.php', handler({ member: true, schema: ReportSchema }, async (c, body) => {
    await profiles.reportProfile(app, c.var.ctx.site, c.var.user!, body);
    return c.json({ reported: true }, 201);
  }));
  routes.post('/like.php', handler({ member: true, schema: LikeSchema }, async (c, body) =>
    c.json(await profiles.likeProfile(app, c.var.ctx.site, c.var.user!, body.profile_id, body.source))));

  routes.get('/match-finder.php', handler({ member: true }, async (c, _body, user) => {
    const { interests: raw, ...query } = c.req.query();
    const filters = v.safeParse(SearchQuerySchema, query);
    const interests = (raw ?? '').split(',').filter(Boolean);
    if (!filters.success || interests.length > MATCH_FINDER_MAX_INTERESTS || !interests.every((i) => (INTERESTS as readonly string[]).includes(i))) {
      return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    }
    return c.json({ results: await profiles.findMatches(app, c.var.ctx.site, user, filters.output, interests) });
  }));

  routes.get('/swipe.php', handler({ member: true }, async (c, _body, user) => c.json(await swipeDeck(app, c.var.ctx.site, user, c.var.member?.extras.profile ?? null))));
  routes.post('/swipe.php', handler({ member: true, schema: SwipeSchema }, async (c, body, user) =>
    c.json(await swipe(app, c.var.ctx.site, user, body.profile_id, body.decision))));

  return routes;
}
