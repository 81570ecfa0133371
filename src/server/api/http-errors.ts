import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { CatalogKey } from '../../shared/i18n';
import type { ApiEnv } from './types';

/** A JSON error with a stable code and a message in the visitor's language. */
export function jsonError(c: Context<ApiEnv>, status: ContentfulStatusCode, code: string, key: CatalogKey, extra: Record<string, unknown> = {}) {
  return c.json({ error: code, message: c.var.t(key), ...extra }, status);
}

/** 403 that tells the client to drop its logged-in state (SPEC §8). */
export function authenticationRequired(c: Context<ApiEnv>) {
  return jsonError(c, 403, 'authentication_required', 'error.authentication_required', { authentication_required: true });
}
