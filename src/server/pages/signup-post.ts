import type { AstroCookies } from 'astro';
import * as v from 'valibot';
import { fieldErrors, SignupSchema } from '../../shared/accounts.contract';
import { MIN_AGE } from '../../shared/constants';
import { isLocale, LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE_S } from '../../shared/locales';
import type { Tracking } from '../../shared/tracking';
import { SESSION_TTL_MS, signup } from '../accounts/accounts.service';
import { AUTH_COOKIE } from '../api/session';
import { RuleError } from '../rule-error';
import { readPageForm } from './request-guard';

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
