import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import * as v from 'valibot';
import { fieldErrors } from '../../shared/accounts.contract';
import { AUTH_COOKIE_MAX_AGE_S } from '../../shared/constants';
import { type AccountsDeps, memberForSession } from '../accounts/accounts.service';
import type { User } from '../db/schema';
import { RateLimitError } from '../limits/abuse-limits';
import { RuleError } from '../rule-error';
import type { Caller } from '../accounts/caller';
import { jsonBody } from './request-body';
import { authenticationRequired } from './http-errors';
import type { ApiEnv } from './types';

export const AUTH_COOKIE = 'kd_session';

/** Puts the member behind the session cookie (or null) on the context. */
export function sessionMiddleware(deps: AccountsDeps): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const token = getCookie(c, AUTH_COOKIE);
    c.set('sessionToken', token ?? null);
    const member = token ? await memberForSession(deps, c.var.ctx.site, token) : undefined;
    c.set('user', member?.user ?? null);
    c.set('member', member ?? null);
    await next();
    // Whatever a member's own write changed (credits, profile, photos, settings …) is committed by
    // now: other processes drop their cached copy of this member (this one's write watch already did).
    if (member && !c.var.announced && c.req.method !== 'GET' && c.req.method !== 'HEAD') await deps.app.sessions.invalidate({ users: [member.user.id] });
  };
}

export function setSessionCookie(c: Context<ApiEnv>, token: string) {
  setCookie(c, AUTH_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'Lax', secure: c.var.ctx.secure, maxAge: AUTH_COOKIE_MAX_AGE_S });
}

export function clearSessionCookie(c: Context<ApiEnv>) {
  deleteCookie(c, AUTH_COOKIE, { path: '/', secure: c.var.ctx.secure });
}

/** The caller description services need, from the request. */
export function callerOf(c: Context<ApiEnv>): Caller {
  const { site, locale, origin } = c.var.ctx;
  return { site, locale, origin, ip: c.var.ip, userAgent: c.req.header('user-agent') ?? null };
}

/** Parses a JSON body with a schema; on failure answers 400 with translated field messages. */
export async function parseBody<S extends v.GenericSchema>(c: Context<ApiEnv>, schema: S): Promise<v.InferOutput<S> | Response> {
  const body = await jsonBody(c);
  const result = v.safeParse(schema, body);
  if (result.success) return result.output;
  const fields = Object.fromEntries(Object.entries(fieldErrors(result.issues)).map(([f, key]) => [f, c.var.t(key, { min: 8, min_age: 18 })]));
  return c.json({ error: 'invalid_input', message: Object.values(fields)[0] ?? c.var.t('error.invalid_input'), fields }, 400);
}

/** Maps a rule's refusal to its HTTP answer; anything else is rethrown. */
export function ruleErrorResponse(c: Context<ApiEnv>, err: unknown) {
  if (!(err instanceof RuleError)) throw err;
  if (err instanceof RateLimitError) c.header('Retry-After', String(err.retryAfterS));
  const t = c.var.t;
  const fields = Object.fromEntries(Object.entries(err.fields).map(([f, key]) => [f, t(key, err.params)]));
  return c.json({ error: err.code, message: t(err.key, err.params), ...(Object.keys(fields).length ? { fields } : {}) }, err.status);
}

export function requireUser(c: Context<ApiEnv>) {
  return c.var.user ? null : authenticationRequired(c);
}

type C = Context<ApiEnv>;
/**
 * One route handler: optionally require a member, parse the body with a schema, run the rule,
 * and turn its refusal into the translated answer.
 */
export function handler<S extends v.GenericSchema | undefined = undefined>(
  options: { member: boolean; schema?: S },
  run: (c: C, body: S extends v.GenericSchema ? v.InferOutput<S> : undefined, user: User) => Promise<Response>,
) {
  return async (c: C) => {
    if (options.member) {
      const denied = requireUser(c);
      if (denied) return denied;
    }
    const body = options.schema ? await parseBody(c, options.schema) : undefined;
    if (body instanceof Response) return body;
    try {
      return await run(c, body as never, c.var.user as User);
    } catch (err) {
      return ruleErrorResponse(c, err);
    }
  };
}
