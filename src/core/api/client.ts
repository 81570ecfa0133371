import ky, { type HTTPError } from 'ky';
import { HTTP_RETRIES } from '../../shared/constants';
import { REQUEST_TYPE_HEADER, REQUEST_TYPE_VALUE, USER_PATH } from '../../shared/user.contract';
import { dismissToastKey, showToast, toastText } from '../toast/toast.store';

/** An API refusal with its code, translated message and per-field messages. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

const authListeners = new Set<() => void>();
/** Called when any endpoint but user.php answers 403 authentication_required. */
export function onAuthenticationRequired(listener: () => void): () => void {
  authListeners.add(listener);
  return () => authListeners.delete(listener);
}

/** Answers worth another try: overload and server trouble. Any other 4xx fails at once. */
export const RETRY_STATUS_CODES = [429, 500, 502, 503, 504];
/** Delay before retry n (1-based): 0.3, 0.6, 1.2, 2.4, 3 s — all five retries within about 10 s. */
export function retryDelay(attempt: number): number {
  return Math.min(300 * 2 ** (attempt - 1), 3_000);
}
const RETRYING_TOAST = 'api-retrying';

/**
 * The one HTTP client: JSON, the client request-type header, and SPEC §7's 5 retries with
 * exponential delay — only after network errors, 5xx and 429, never silently (a toast says so).
 */
export const api = ky.create({
  prefixUrl: '/api',
  credentials: 'same-origin',
  headers: { [REQUEST_TYPE_HEADER]: REQUEST_TYPE_VALUE },
  retry: { limit: HTTP_RETRIES, methods: ['get', 'put', 'delete'], statusCodes: RETRY_STATUS_CODES, delay: retryDelay, maxRetryAfter: 5_000 },
  timeout: 10_000,
  hooks: {
    beforeRetry: [
      () => {
        const text = toastText('retrying');
        if (text) showToast({ key: RETRYING_TOAST, text, tone: 'info', sticky: true });
      },
    ],
    afterResponse: [
      (_request, _options, response) => {
        if (response.status < 500 && response.status !== 429) dismissToastKey(RETRYING_TOAST);
      },
    ],
    beforeError: [
      async (error: HTTPError) => {
        const body = (await error.response.clone().json().catch(() => null)) as
          | { error?: string; message?: string; fields?: Record<string, string>; authentication_required?: boolean }
          | null;
        if (error.response.status === 403 && body?.authentication_required && !error.request.url.endsWith(USER_PATH)) {
          for (const listener of authListeners) listener();
        }
        return Object.assign(error, { api: new ApiError(error.response.status, body?.error ?? 'error', body?.message ?? error.message, body?.fields) });
      },
    ],
  },
});

/** The member's session ended (another endpoint said so, or user.php no longer knows them). */
export function notifySessionEnded() {
  for (const listener of authListeners) listener();
}

/** Runs a call and turns HTTP failures into ApiError (network failures keep their error). */
export async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (err) {
    dismissToastKey(RETRYING_TOAST);
    const apiError = (err as { api?: ApiError }).api;
    throw apiError ?? err;
  }
}
