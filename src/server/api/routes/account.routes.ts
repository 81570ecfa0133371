import { type Context, Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import * as v from 'valibot';
import {
  AccountSettingsSchema, ChangePasswordSchema, CompleteSignupSchema, DeleteAccountSchema, LoginSchema, MailChangeSchema,
  ProfileAboutSchema, ResetDoSchema, ResetRequestSchema, SignupSchema, TokenSchema, UserUpdateSchema,
} from '../../../shared/accounts.contract';
import { isLocale, LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE_S } from '../../../shared/locales';
import { cleanNote } from '../../../shared/profile-options';
import { PUSH_SERVICE_HOSTS, PushSubscribeSchema, PushUnsubscribeSchema } from '../../../shared/user.contract';
import { findUserById } from '../../accounts/accounts.repository';
import * as accounts from '../../accounts/accounts.service';
import type { AppContext } from '../../app-context';
import type { User } from '../../db/schema';
import { jsonError } from '../http-errors';
import { isOwnNavigation } from '../security';
import {
  callerOf, clearSessionCookie, handler, setSessionCookie,
} from '../session';
import type { ApiEnv } from '../types';

const QueryToken = v.pipe(v.string(), v.minLength(10), v.maxLength(100));
type C = Context<ApiEnv>;

/** Sessions, signup, activation, password reset, mail change, settings, deletion and data export. */
export function accountRoutes(app: AppContext) {
  const deps: accounts.AccountsDeps = { app, mailer: app.mailer, limits: app.limits };
  const routes = new Hono<ApiEnv>();
  const now = () => app.clock.now();

  const answerUser = async (c: C, user: User) => c.json({ user: await accounts.describeUser(deps, c.var.ctx.site, user) });
  /** Logs the browser in with a fresh session and answers the member. */
  const startSession = (c: C, session: { user: User; token: string }) => {
    setSessionCookie(c, session.token);
    // The member's saved language follows them to every device they log in on.
    if (isLocale(session.user.language)) {
      setCookie(c, LOCALE_COOKIE, session.user.language, { path: '/', maxAge: LOCALE_COOKIE_MAX_AGE_S, sameSite: 'Lax', secure: c.var.ctx.secure });
    }
    return answerUser(c, session.user);
  };

  // Also answered without Hono by the node entry when there is no query (src/server/api/session-user.ts).
  routes.get('/user.php', async (c) =>
    c.var.member ? c.body(await accounts.sessionUserBody(deps, c.var.ctx.site, c.var.member), 200, { 'Content-Type': 'application/json' }) : c.json({ user: null }));

  routes.post('/user.php', async (c) => {
    // POST /api/user.php?push=1 {subscription}: this browser's web-push subscription (SPEC §7).
    if (c.req.query('push') !== undefined) {
      return handler({ member: true, schema: PushSubscribeSchema }, async (c, body, user) => {
        // In production the server only ever posts to the browsers' push services (no SSRF).
        const host = new URL(body.subscription.endpoint);
        if (app.config.production && (host.protocol !== 'https:' || !PUSH_SERVICE_HOSTS.some((re) => re.test(host.hostname)))) {
          return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
        }
        await app.push.subscribe(user.id, body.subscription, app.clock.now());
        return c.json({ subscribed: true });
      })(c);
    }
    return handler({ member: false, schema: LoginSchema }, async (c, body) =>
      startSession(c, await accounts.login(deps, callerOf(c), body.email, body.password)))(c);
  });

  routes.delete('/user.php', async (c) => {
    if (c.req.query('push') === undefined) return jsonError(c, 404, 'not_found', 'error.api_not_found');
    return handler({ member: true, schema: PushUnsubscribeSchema }, async (c, body, user) => {
      await app.push.unsubscribe(user.id, body.endpoint);
      return c.json({ subscribed: false });
    })(c);
  });

  routes.put('/user.php', handler({ member: true, schema: UserUpdateSchema }, async (c, body, user) => {
    await accounts.setLanguage(deps, user, body.language);
    setCookie(c, LOCALE_COOKIE, body.language, { path: '/', maxAge: LOCALE_COOKIE_MAX_AGE_S, sameSite: 'Lax', secure: c.var.ctx.secure });
    return answerUser(c, { ...user, language: body.language });
  }));

  routes.get('/logout.php', async (c) => {
    // Another site must not be able to log a member out with a link or an image.
    if (!isOwnNavigation(c.req.raw.headers, c.var.ctx)) {
      if (c.req.header('sec-fetch-mode') === 'navigate') return c.redirect('/', 303);
      return jsonError(c, 403, 'cross_site', 'error.cross_site');
    }
    await accounts.logout(deps, c.var.sessionToken ?? undefined, c.var.user?.id);
    clearSessionCookie(c);
    // A plain link (no script) lands back on the home page.
    if (c.req.header('sec-fetch-mode') === 'navigate') return c.redirect('/', 303);
    return c.json({ user: null });
  });

  routes.post('/signup.php', async (c) => {
    if (c.var.user) return jsonError(c, 409, 'already_logged_in', 'error.invalid_input');
    // The visit's tracking (kept in its cookie since the landing page) completes what the wizard sends.
    return handler({ member: false, schema: SignupSchema(now) }, async (c, body) =>
      startSession(c, await accounts.signup(deps, callerOf(c), { ...body, tracking: { ...c.var.tracking, ...body.tracking } })))(c);
  });

  // E-mailed link: confirms and sends the browser on to the result page.
  routes.get('/activate.php', async (c) => {
    const token = c.req.query('token');
    if (!v.is(QueryToken, token)) return c.redirect('/activate/error', 303);
    return accounts.activate(deps, c.var.ctx.site, token).then(
      () => c.redirect('/activate/done', 303),
      () => c.redirect('/activate/error', 303),
    );
  });

  routes.post('/resend-activation.php', handler({ member: true }, async (c, _body, user) => {
    await accounts.resendActivation(deps, callerOf(c), user);
    return c.json({ sent: true });
  }));

  routes.post('/reset-password.php', handler({ member: false, schema: ResetRequestSchema }, async (c, body) => {
    await accounts.requestPasswordReset(deps, callerOf(c), body.email);
    return c.json({ sent: true });
  }));

  routes.post('/reset-password-do.php', handler({ member: false, schema: ResetDoSchema }, async (c, body) =>
    startSession(c, await accounts.resetPassword(deps, callerOf(c), body.token, body.password))));

  routes.post('/change-password.php', handler({ member: true, schema: ChangePasswordSchema }, async (c, body, user) => {
    setSessionCookie(c, await accounts.changePassword(deps, callerOf(c), user, body.old_password, body.password));
    return c.json({ changed: true });
  }));

  routes.post('/mail-change.php', handler({ member: true, schema: MailChangeSchema }, async (c, body, user) => {
    await accounts.requestMailChange(deps, callerOf(c), user, body.email, body.password);
    return c.json({ sent: true });
  }));

  routes.post('/mail-change-do.php', handler({ member: false, schema: TokenSchema }, async (c, body) =>
    c.json({ email: (await accounts.confirmMailChange(deps, c.var.ctx.site, body.token)).email })));

  routes.get('/account-settings.php', handler({ member: true }, async (c, _body, user) => answerUser(c, user)));

  routes.put('/account-settings.php', handler({ member: true, schema: AccountSettingsSchema }, async (c, body, user) => {
    await accounts.updateSettings(deps, user, body);
    return answerUser(c, (await findUserById(app.db.db, user.id)) ?? user);
  }));

  routes.get('/notifications.php', handler({ member: true }, async (c, _body, user) =>
    c.json({ notifications: await accounts.listNotifications(deps, user) })));

  routes.post('/delete-account.php', handler({ member: true, schema: DeleteAccountSchema }, async (c, body, user) => {
    await accounts.deleteAccount(deps, callerOf(c), user, body.password);
    clearSessionCookie(c);
    return c.json({ deleted: true });
  }));

  // E-mailed link: restores the account, logs it in, and goes to the members page.
  routes.get('/reactivate.php', async (c) => {
    const token = c.req.query('token');
    const failed = () => c.redirect('/account-deleted?reactivation=failed', 303);
    if (!v.is(QueryToken, token)) return failed();
    return accounts.reactivate(deps, callerOf(c), token).then((session) => {
      setSessionCookie(c, session.token);
      return c.redirect('/members?reactivated=1', 303);
    }, failed);
  });

  routes.get('/export.php', handler({ member: true }, async (c, _body, user) => {
    c.header('Content-Disposition', `attachment; filename="${c.var.ctx.site.id}-my-data.json"`);
    return c.json(await accounts.exportData(deps, user));
  }));

  routes.patch('/profile.php', handler({ member: true, schema: ProfileAboutSchema }, async (c, body, user) => {
    if (body.country && !c.var.ctx.site.countries.includes(body.country)) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    // A note the site does not show could not be seen or corrected by anyone: refuse it.
    if (body.about !== undefined && !c.var.ctx.site.visible_profile_notes.includes('about')) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    const change = body.about === undefined ? body : { ...body, about: cleanNote(body.about) };
    if (Object.keys(change).length) await app.db.db.updateTable('profiles').set(change).where('user_id', '=', user.id).execute();
    return answerUser(c, user);
  }));

  // Affiliate API: create an account elsewhere and get the link that lets the member finish it.
  const AffiliateSchema = v.object({ email: v.string(), tracking: v.optional(v.record(v.string(), v.pipe(v.string(), v.maxLength(128)))) });
  routes.post('/affiliate/signup.php', async (c) => {
    const key = app.config.affiliateApiKey;
    if (!key || c.req.header('x-api-key') !== key) return jsonError(c, 403, 'forbidden', 'error.authentication_required');
    return handler({ member: false, schema: AffiliateSchema }, async (c, body) =>
      c.json({ url: await accounts.createApiSignup(deps, callerOf(c), body) }, 201))(c);
  });

  routes.post('/complete-signup.php', handler({ member: false, schema: CompleteSignupSchema(now) }, async (c, body) =>
    startSession(c, await accounts.completeSignup(deps, callerOf(c), body))));

  return routes;
}
