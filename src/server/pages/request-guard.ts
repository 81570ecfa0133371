import type { IncomingHttpHeaders } from 'node:http';

/** Form posts to pages carry a few fields; anything bigger is not a form of ours. */
export const PAGE_FORM_MAX_BYTES = 64 * 1024;
const FORM_TYPES = /^(application\/x-www-form-urlencoded|multipart\/form-data)\s*(;|$)/i;
// Control characters (CR, LF, NUL …) have no place in a path. (Query values are the pages' own
// business: `next` goes through safeNextPath, which drops them.)
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a page request cannot be answered normally: its status and the catalog key of its message. */
export interface PageRequestProblem {
  status: 400 | 404 | 405 | 411 | 413 | 415;
  key: 'error.bad_request' | 'error.not_found' | 'error.method_not_allowed' | 'error.too_large';
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a request for a page before anything renders it: the path must decode and hold no
 * control characters; pages answer GET and HEAD, and POST only as a sized web form.
 * One check for every page, so no page can turn bad input into a 5xx.
 */
export function pageRequestProblem(req: { method?: string; url?: string; headers: IncomingHttpHeaders }): PageRequestProblem | null {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const pathname = q === -1 ? url : url.slice(0, q);
  try {
    if (CONTROL.test(decodeURIComponent(pathname))) return { status: 400, key: 'error.bad_request' };
  } catch {
    return { status: 400, key: 'error.bad_request' };
  }
  const method = (req.method ?? 'GET').toUpperCase();
  if (method === 'GET' || method === 'HEAD') return null;
  if (method !== 'POST') return { status: 405, key: 'error.method_not_allowed' };
  if (!FORM_TYPES.test(header(req.headers, 'content-type') ?? '')) return { status: 415, key: 'error.bad_request' };
  const length = header(req.headers, 'content-length');
  if (length === undefined || !/^\d+$/.test(length)) return { status: 411, key: 'error.bad_request' };
  if (Number(length) > PAGE_FORM_MAX_BYTES) return { status: 413, key: 'error.too_large' };
  return null;
}

/** The page that shows a bad request's error (src/pages/request-error.astro). */
export const REQUEST_ERROR_PATH = '/request-error';
/** A path no page route matches. */
export const NOT_FOUND: PageRequestProblem = { status: 404, key: 'error.not_found' };
/** The problem of a form body that cannot be parsed. */
export const UNREADABLE_FORM: PageRequestProblem = { status: 400, key: 'error.bad_request' };

/** A page's form body, or null when it cannot be parsed (a broken multipart body). */
export async function readPageForm(request: Request): Promise<FormData | null> {
  try {
    // A clone, so the page can still rewrite to the error page (the original body stays unread).
    return await request.clone().formData();
  } catch {
    return null;
  }
}
