import type { AstroCookies, AstroGlobal } from 'astro';
import * as v from 'valibot';
import { fieldErrors, SignupSchema } from '../../shared/accounts.contract';
import { MIN_AGE } from '../../shared/constants';
import { isLocale, LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE_S } from '../../shared/locales';
import type { Tracking } from '../../shared/tracking';
import { SESSION_TTL_MS, signup } from '../accounts/accounts.service';
import { AUTH_COOKIE } from '../api/session';
import { RuleError } from '../rule-error';
import { recordFunnelStep } from '../landers/funnel.service';
import { requestTracking } from '../tracking/tracking.service';
import { readPageForm, REQUEST_ERROR_PATH, UNREADABLE_FORM } from './request-guard';
import type { SignupWizardProps } from '../../islands/signup/SignupWizard';
import { signupWizardProps } from './signup-props';

/** What the first step shows again after a refused post: every message, and what was typed (never the password). */
export interface SignupPostRefusal {
  status: number;
  errors: string[];
  values: Record<string, string>;
}

const FIELDS = ['email', 'name', 'date_of_birth', 'gender', 'signup_message'] as const;

/**
 * The signup's first step posted without script (or before it loaded): the same schema and service
 * as POST /api/signup.php, then the session cookie and the member area (303). A refusal lists every
 * invalid field's message, translated, for the form to show. null: the body could not be read.
 */
export async function signupFromForm(
  locals: App.Locals, request: Request, cookies: AstroCookies, options: { tracking: Tracking; targetId?: number },
): Promise<{ redirect: string } | SignupPostRefusal | null> {
  const form = await readPageForm(request);
  if (!form) return null;
  const { ctx, t, services } = locals;
  const text = (name: string, max: number) => String(form.get(name) ?? '').slice(0, max);
  const values = Object.fromEntries(FIELDS.map((f) => [f, text(f, 1000)]));
  const input = {
    email: text('email', 254), name: text('name', 64), password: text('password', 256), date_of_birth: text('date_of_birth', 10),
    gender: text('gender', 16) || undefined, signup_message: text('signup_message', 1000) || undefined,
    ...(options.targetId ? { target_profile_id: options.targetId } : {}), language: ctx.locale,
  };
  const parsed = v.safeParse(SignupSchema(() => services.app.clock.now()), input);
  if (!parsed.success) {
    // One message per field, as the wizard shows them ({{min}}: the length the rule asks for).
    const keys = fieldErrors(parsed.issues);
    const requirement = (field: string) => (parsed.issues.find((i) => v.getDotPath(i) === field) as { requirement?: unknown } | undefined)?.requirement;
    const errors = [...new Set(Object.entries(keys).map(([field, key]) => t(key, { min: requirement(field), min_age: MIN_AGE })))];
    return { status: 400, errors, values };
  }
  try {
    const caller = { site: ctx.site, locale: ctx.locale, origin: ctx.origin, ip: ctx.ip, userAgent: request.headers.get('user-agent') };
    const session = await signup(services.accounts, caller, { ...parsed.output, tracking: options.tracking });
    cookies.set(AUTH_COOKIE, session.token, { path: '/', httpOnly: true, sameSite: 'lax', secure: ctx.secure, maxAge: SESSION_TTL_MS / 1000 });
    if (isLocale(session.user.language)) cookies.set(LOCALE_COOKIE, session.user.language, { path: '/', sameSite: 'lax', secure: ctx.secure, maxAge: LOCALE_COOKIE_MAX_AGE_S });
    return { redirect: options.targetId ? `/members/${options.targetId}` : '/members' };
  } catch (err) {
    if (!(err instanceof RuleError)) throw err;
    return { status: err.status, errors: [t(err.key, err.params)], values };
  }
}

/**
 * The signup page's request, with or without a target member: a POST of the first step (no script) is taken
 * here; a GET counts as a started signup. Answers the response to send instead of the page (a redirect after
 * signup, the request-error page for an unreadable body), or what the page shows again after a refusal.
 */
export async function signupPageRequest(
  astro: Pick<AstroGlobal, 'locals' | 'request' | 'cookies' | 'url' | 'redirect' | 'rewrite' | 'response'>, target: { id: number; name: string } | null,
): Promise<{ response: Response | Promise<Response> } | { refused: SignupPostRefusal | null; props: SignupWizardProps }> {
  const { ctx, services } = astro.locals;
  const tracking = requestTracking(astro.url, astro.request.headers.get('cookie'));
  let refused: SignupPostRefusal | null = null;
  if (astro.request.method === 'POST') {
    const outcome = await signupFromForm(astro.locals, astro.request, astro.cookies, { tracking, targetId: target?.id });
    if (!outcome) {
      astro.locals.pageProblem = UNREADABLE_FORM;
      return { response: astro.rewrite(REQUEST_ERROR_PATH) };
    }
    if ('redirect' in outcome) return { response: astro.redirect(outcome.redirect, 303) };
    refused = outcome;
    astro.response.status = outcome.status;
  } else {
    await recordFunnelStep(services.app.db.db, ctx.site.id, tracking, 'signups_started');
  }
  return { refused, props: signupWizardProps(ctx.site, ctx.locale, tracking, target) };
}
