import { defineMiddleware, sequence } from 'astro:middleware';
import { getT } from './shared/i18n';
import { compressedPage, PAGE_CACHE_CONTROL, plainEncoding } from './server/api/compression';
import { contentSecurityPolicy, inlineScriptHashes } from './server/security-headers';
import { createRequestContext } from './server/context/request-context';
import { readConfig } from './server/config';
import { bodyOfMemberPage } from './server/pages/bodies';
import { pageRequestProblem, REQUEST_ERROR_PATH } from './server/pages/request-guard';
import { SiteRegistry, loadSites } from './server/sites/site-registry';
import { fallbackErrorPage } from './server/errors/fallback-page';

let fallbackRegistry: SiteRegistry | null = null;

/** The node entry hands us the context in locals; `astro dev` and prerendering build it here. */
const context = defineMiddleware((astro, next) => {
  if (!astro.locals.ctx && !astro.isPrerendered) {
    fallbackRegistry ??= new SiteRegistry(loadSites());
    astro.locals.ctx = createRequestContext(
      fallbackRegistry,
      { headers: Object.fromEntries(astro.request.headers), remoteAddress: astro.clientAddress },
      readConfig(),
    );
  }
  if (astro.locals.ctx) {
    astro.locals.t = getT(astro.locals.ctx.locale);
    astro.locals.user ??= null;
  }
  // Bad input (found by the node entry, or here under `astro dev`) gets the error page with its 4xx.
  if (!astro.isPrerendered && astro.url.pathname !== REQUEST_ERROR_PATH) {
    const { pathname, search } = new URL(astro.request.url);
    const problem = astro.locals.pageProblem
      ?? pageRequestProblem({ method: astro.request.method, url: pathname + search, headers: Object.fromEntries(astro.request.headers) });
    if (problem) {
      astro.locals.pageProblem = problem;
      return next(REQUEST_ERROR_PATH);
    }
  }
  return next();
});

/**
 * The error page itself failed (its layout fails as the page did, say): the spec's fallback page, with
 * the error's status, instead of the empty 500 Astro would answer. The page is whole once `next()` has
 * answered (the CSP step below reads it), so a failure while it streams is caught here too.
 */
const errorPageGuard = defineMiddleware(async (astro, next) => {
  if (astro.routePattern !== '/500') return next();
  const fallback = (status: number) =>
    new Response(fallbackErrorPage(astro.locals.ctx?.locale ?? 'en', null), { status, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' } });
  try {
    const response = await next();
    return response.status >= 500 && response.body === null ? fallback(response.status) : response;
  } catch {
    return fallback(500);
  }
});

/** Pages rendered on request get a CSP that allows exactly their inline scripts. */
const csp = defineMiddleware(async (astro, next) => {
  const response = await next();
  // Already done by this middleware for the page a rewrite rendered (the 404 page, Astro.rewrite).
  if (response.headers.has('content-encoding')) return response;
  if (astro.isPrerendered || !response.headers.get('content-type')?.startsWith('text/html')) return response;
  const html = await response.text();
  // A member page whose layout the node entry keeps as a frame (src/server/pages/member-frame.ts): only a
  // page that answered its body's own status and set no cookie.
  const { frameCapture, memberBody } = astro.locals;
  if (frameCapture && memberBody && response.status === memberBody.status && !response.headers.has('set-cookie')) frameCapture(html, memberBody, bodyOfMemberPage);
  const headers = new Headers(response.headers);
  headers.set('Content-Security-Policy', contentSecurityPolicy(inlineScriptHashes(html)));
  headers.set('Cache-Control', PAGE_CACHE_CONTROL);
  // The page is whole here: compressed in one call, which costs a third of a compression stream per
  // response (the node entry's compression then leaves it alone; unusual Accept-Encoding headers are its job).
  const page = await compressedPage(html, import.meta.env.PROD ? plainEncoding(astro.request.headers.get('accept-encoding') ?? undefined) : null);
  if (page.encoding) {
    headers.set('Content-Encoding', page.encoding);
    headers.append('Vary', 'Accept-Encoding');
  }
  return new Response(page.body as unknown as BodyInit, { status: response.status, statusText: response.statusText, headers });
});

export const onRequest = sequence(errorPageGuard, context, csp);
