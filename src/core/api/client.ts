import ky, { type HTTPError } from 'ky';
import { HTTP_RETRIES } from '../../shared/constants';
import { REQUEST_TYPE_HEADER, REQUEST_TYPE_VALUE, USER_PATH } from '../../shared/user.contract';

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

/** The one HTTP client: JSON, 5 retries with exponential delay, the client request-type header. */
export const api = ky.create({
  prefixUrl: '/api',
  credentials: 'same-origin',
  headers: { [REQUEST_TYPE_HEADER]: REQUEST_TYPE_VALUE },
  retry: { limit: HTTP_RETRIES, methods: ['get', 'put', 'delete'], statusCodes: [408, 429, 500, 502, 503, 504], backoffLimit: 8_000 },
  timeout: 20_000,
  hooks: {
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

/** Runs a call and turns HTTP failures into ApiError (network failures keep their error). */
export async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (err) {
    const apiError = (err as { api?: ApiError }).api;
    throw apiError ?? err;
  }
}
