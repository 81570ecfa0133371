import { type Context, Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import * as v from 'valibot';
import {
  AccountSettingsSchema, ChangePasswordSchema, CompleteSignupSchema, DeleteAccountSchema, LoginSchema, MailChangeSchema,
  ProfileAboutSchema, ResetDoSchema, ResetRequestSchema, SignupSchema, TokenSchema, UserUpdateSchema,
} from '../../../shared/accounts.contract';
import { LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE_S } from '../../../shared/locales';
import * as accounts from '../../accounts/accounts.service';
import type { AppContext } from '../../app-context';
import { jsonError } from '../http-errors';
import {
  accountErrorResponse, callerOf, clearSessionCookie, parseBody, requireUser, sessionMiddleware, setSessionCookie,
} from '../session';
import type { ApiEnv } from '../types';

const QueryToken = v.pipe(v.string(), v.minLength(10), v.maxLength(100));

/** Sessions, signup, activation, password reset, mail change, settings, deletion and data export. */
export function accountRoutes(app: AppContext) {
  const deps: accounts.AccountsDeps = { app, mailer: app.mailer, limits: app.limits };
  const routes = new Hono<ApiEnv>();
  routes.use('*', sessionMiddleware(deps));
  const now = () => app.clock.now();
  const signupSchema = SignupSchema(now);
  const completeSchema = CompleteSignupSchema(now);

  const answerUser = async (c: Context<ApiEnv>, user: Parameters<typeof accounts.describeUser>[2]) =>
    c.json({ user: await accounts.describeUser(deps, c.var.ctx.site, user) });

  routes.get('/user.php', async (c) =>
    c.var.user ? c.json({ user: await accounts.describeUser(deps, c.var.ctx.site, c.var.user, c.var.memberExtras ?? undefined) }) : c.json({ user: null }));

  routes.post('/user.php', async (c) => {
    if (c.req.query('push') !== undefined) return jsonError(c, 404, 'not_found', 'error.api_not_found');
    const body = await parseBody(c, LoginSchema);
    if (body instanceof Response) return body;
    try {
      const { user, token } = await accounts.login(deps, callerOf(c), body.email, body.password);
      setSessionCookie(c, token);
      return answerUser(c, user);
    } catch (err) {
      return accountErrorResponse(c, err);
    }
  });

  routes.put('/user.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const body = await parseBody(c, UserUpdateSchema);
    if (body instanceof Response) return body;
    await accounts.setLanguage(deps, c.var.user!, body.language);
    setCookie(c, LOCALE_COOKIE, body.language, { path: '/', maxAge: LOCALE_COOKIE_MAX_AGE_S, sameSite: 'Lax', secure: c.var.ctx.secure });
    return answerUser(c, { ...c.var.user!, language: body.language });
  });

  routes.get('/logout.php', async (c) => {
    await accounts.logout(deps, c.var.sessionToken ?? undefined);
    clearSessionCookie(c);
    // A plain link (no script) lands back on the home page.
    if (c.req.header('sec-fetch-mode') === 'navigate') return c.redirect('/', 303);
    return c.json({ user: null });
  });

  routes.post('/signup.php', async (c) => {
    if (c.var.user) return jsonError(c, 409, 'already_logged_in', 'error.invalid_input');
    const body = await parseBody(c, signupSchema);
    if (body instanceof Response) return body;
    try {
      const { user, token } = await accounts.signup(deps, callerOf(c), body);
      setSessionCookie(c, token);
      return answerUser(c, user);
    } catch (err) {
      return accountErrorResponse(c, err);
    }
  });

  // E-mailed link: confirms and sends the browser on to the result page.
  routes.get('/activate.php', async (c) => {
    const token = c.req.query('token');
    if (!v.is(QueryToken, token)) return c.redirect('/activate/error', 303);
    try {
      await accounts.activate(deps, token);
      return c.redirect('/activate/done', 303);
    } catch {
      return c.redirect('/activate/error', 303);
    }
  });

  routes.post('/resend-activation.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    try {
      await accounts.sendActivation(deps, callerOf(c), c.var.user!);
      return c.json({ sent: true });
    } catch (err) {
      return accountErrorResponse(c, err);
    }
  });

  routes.post('/reset-password.php', async (c) => {
    const body = await parseBody(c, ResetRequestSchema);
    if (body instanceof Response) return body;
    try {
      await accounts.requestPasswordReset(deps, callerOf(c), body.email);
      return c.json({ sent: true });
    } catch (err) {
      return accountErrorResponse(c, err);
    }
  });

  routes.post('/reset-password-do.php', async (c) => {
    const body = await parseBody(c, ResetDoSchema);
    if (body instanceof Response) return body;
    try {
      const { user, token } = await accounts.resetPassword(deps, callerOf(c), body.token, body.password);
      setSessionCookie(c, token);
      return answerUser(c, user);
    } catch (err) {
      return accountErrorResponse(c, err);
    }
  });

  routes.post('/change-password.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const body = await parseBody(c, ChangePasswordSchema);
    if (body instanceof Response) return body;
    try {
      setSessionCookie(c, await accounts.changePassword(deps, callerOf(c), c.var.user!, body.old_password, body.password));
      return c.json({ changed: true });
    } catch (err) {
      return accountErrorResponse(c, err);
    }
  });

  routes.post('/mail-change.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const body = await parseBody(c, MailChangeSchema);
    if (body instanceof Response) return body;
    try {
      await accounts.requestMailChange(deps, callerOf(c), c.var.user!, body.email, body.password);
      return c.json({ sent: true });
    } catch (err) {
      return accountErrorResponse(c, err);
    }
  });

  routes.post('/mail-change-do.php', async (c) => {
    const body = await parseBody(c, TokenSchema);
    if (body instanceof Response) return body;
    try {
      const user = await accounts.confirmMailChange(deps, body.token);
      return c.json({ email: user.email });
    } catch (err) {
      return accountErrorResponse(c, err);
    }
  });

  routes.get('/account-settings.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    return answerUser(c, c.var.user!);
  });

  routes.put('/account-settings.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const body = await parseBody(c, AccountSettingsSchema);
    if (body instanceof Response) return body;
    await accounts.updateSettings(deps, c.var.user!, body);
    const fresh = await accounts.userForSession(deps, c.var.sessionToken ?? undefined);
    return answerUser(c, fresh ?? c.var.user!);
  });

  routes.get('/notifications.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    return c.json({ notifications: await accounts.listNotifications(deps, c.var.user!) });
  });

  routes.post('/delete-account.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const body = await parseBody(c, DeleteAccountSchema);
    if (body instanceof Response) return body;
    try {
      await accounts.deleteAccount(deps, callerOf(c), c.var.user!, body.password);
      clearSessionCookie(c);
      return c.json({ deleted: true });
    } catch (err) {
      return accountErrorResponse(c, err);
    }
  });

  // E-mailed link: restores the account, logs it in, and goes to the members page.
  routes.get('/reactivate.php', async (c) => {
    const token = c.req.query('token');
    if (!v.is(QueryToken, token)) return c.redirect('/account-deleted?reactivation=failed', 303);
    try {
      const session = await accounts.reactivate(deps, callerOf(c), token);
      setSessionCookie(c, session.token);
      return c.redirect('/members?reactivated=1', 303);
    } catch {
      return c.redirect('/account-deleted?reactivation=failed', 303);
    }
  });

  routes.get('/export.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    c.header('Content-Disposition', `attachment; filename="${c.var.ctx.site.id}-my-data.json"`);
    return c.json(await accounts.exportData(deps, c.var.user!));
  });

  routes.patch('/profile.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const body = await parseBody(c, ProfileAboutSchema);
    if (body instanceof Response) return body;
    if (body.country && !c.var.ctx.site.countries.includes(body.country)) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    if (Object.keys(body).length) await app.db.db.updateTable('profiles').set(body).where('user_id', '=', c.var.user!.id).execute();
    return answerUser(c, c.var.user!);
  });

  // Affiliate API: create an account elsewhere and get the link that lets the member finish it.
  routes.post('/affiliate/signup.php', async (c) => {
    const key = app.config.affiliateApiKey;
    if (!key || c.req.header('x-api-key') !== key) return jsonError(c, 403, 'forbidden', 'error.authentication_required');
    const body = await parseBody(c, v.object({ email: v.string(), tracking: v.optional(v.record(v.string(), v.pipe(v.string(), v.maxLength(128)))) }));
    if (body instanceof Response) return body;
    try {
      return c.json({ url: await accounts.createApiSignup(deps, callerOf(c), body) }, 201);
    } catch (err) {
      return accountErrorResponse(c, err);
    }
  });

  routes.post('/complete-signup.php', async (c) => {
    const body = await parseBody(c, completeSchema);
    if (body instanceof Response) return body;
    try {
      const { user, token } = await accounts.completeSignup(deps, callerOf(c), body);
      setSessionCookie(c, token);
      return answerUser(c, user);
    } catch (err) {
      return accountErrorResponse(c, err);
    }
  });

  return routes;
}
