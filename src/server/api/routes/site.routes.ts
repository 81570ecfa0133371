import { Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import * as v from 'valibot';
import { regionsFor } from '../../../shared/geo/regions';
import { LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE_S, matchLocale } from '../../../shared/locales';
import { INTERESTS } from '../../../shared/profile-options';
import type { AppContext } from '../../app-context';
import { parseCookies } from '../../context/request-context';
import { buildSettings } from '../../sites/settings.service';
import { signupWizardProps } from '../../pages/signup-props';
import { jsonError } from '../http-errors';
import { landerOfPath } from '../../../shared/tracking';
import { findSignupTarget } from '../../landers/landers.service';
import { recordFunnelStep } from '../../landers/funnel.service';
import type { ApiEnv } from '../types';

const QuerySchema = v.record(v.string(), v.pipe(v.string(), v.maxLength(200)));
const CountrySchema = v.pipe(v.string(), v.regex(/^[A-Z]{2}$/));

/** Site-wide data: settings, company info, regions, interests, and the page-hidden beacon. */
export function siteRoutes(app: AppContext) {
  const routes = new Hono<ApiEnv>();

  routes.get('/settings.php', (c) => {
    const query = v.safeParse(QuerySchema, c.req.query());
    if (!query.success) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    const { site, locale, country } = c.var.ctx;
    const host = c.req.header('host') ?? site.domains[0];
    const settings = buildSettings({ site, locale, geoipCountry: country, host, query: { ...query.output, network: c.var.tracking.network }, pushPublicKey: app.push.publicKey });
    // domain_language sets the language cookie when none is set and it names a supported locale.
    const cookies = parseCookies(c.req.header('cookie'));
    const siteLocale = matchLocale(site.domain_language.slice(0, 2));
    if (!cookies[LOCALE_COOKIE] && siteLocale) {
      setCookie(c, LOCALE_COOKIE, siteLocale, {
        path: '/', maxAge: LOCALE_COOKIE_MAX_AGE_S, sameSite: 'Lax', secure: c.var.ctx.secure,
      });
    }
    return c.json(settings);
  });

  // Props of the signup wizard for the desktop modal; tracking comes from the page's query string and the visit's
  // cookie; ?target=<profile id> makes step 0 the free message to that member (only active, visible ones of this site).
  routes.get('/signup-form.php', async (c) => {
    const { site, locale } = c.var.ctx;
    const targetId = Number(c.req.query('target'));
    const target = c.req.query('target') !== undefined && Number.isSafeInteger(targetId) && targetId > 0
      ? ((await findSignupTarget(app.db.db, site.id, targetId)) ?? null)
      : null;
    await recordFunnelStep(app.db.db, site.id, c.var.tracking, 'signups_started');
    return c.json(signupWizardProps(site, locale, c.var.tracking, target));
  });

  routes.get('/company.php', (c) => {
    const { site } = c.var.ctx;
    const settings = buildSettings({ site, locale: c.var.ctx.locale, geoipCountry: null, host: site.domains[0], query: {} });
    return c.json({ company: settings.company });
  });

  routes.get('/regions.php', (c) => {
    const { site, locale } = c.var.ctx;
    const country = c.req.query('country');
    if (country !== undefined) {
      if (!v.is(CountrySchema, country)) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
      return c.json({ regions: { [country]: regionsFor(country, locale) } });
    }
    return c.json({ regions: Object.fromEntries(site.countries.map((cc) => [cc, regionsFor(cc, locale)])) });
  });

  routes.get('/interests.php', (c) => {
    const t = c.var.t;
    return c.json({ interests: INTERESTS.map((key) => ({ key, label: t(`interest.${key}`) })) });
  });

  // Sent with navigator.sendBeacon when a page becomes hidden; logged for bounce analysis when ?lb is set.
  // A hidden lander page (the beacon's Referer) counts as a bounce in that lander's funnel.
  routes.post('/page-hidden.php', async (c) => {
    if (c.req.query('lb') !== undefined) {
      const referer = c.req.header('referer');
      app.logger.info({ site: c.var.ctx.site.id, referer }, 'page hidden');
      let lander: ReturnType<typeof landerOfPath> = null;
      try {
        lander = referer ? landerOfPath(new URL(referer).pathname) : null;
      } catch { /* not a URL: nothing to count */ }
      if (lander) await recordFunnelStep(app.db.db, c.var.ctx.site.id, { ...c.var.tracking, ...lander }, 'bounces');
    }
    return c.body(null, 204);
  });

  return routes;
}
