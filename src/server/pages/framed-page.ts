import type { IncomingMessage, ServerResponse } from 'node:http';
import { inTimeBonusWindow } from '../../shared/constants';
import type { SessionUser } from '../../shared/user.contract';
import { compressedPage, PAGE_CACHE_CONTROL, plainEncoding } from '../api/compression';
import { contentSecurityPolicy } from '../security-headers';
import { loadTimeBonusAnswer } from './payment-screens';
import type { bodyOfMemberPage } from './bodies';
import { memberLayoutParts } from './layout-parts';
import { captureFrame, fillFrame, FrameStore, frameKey, framePattern, frameScriptHashes, layoutTitle } from './member-frame';

export { FrameStore };

/**
 * The bodies' renderer (src/server/pages/bodies), handed over by src/middleware.ts with the first captured
 * frame: the bodies render islands, which only Astro's (Vite's) build can load — not this entry's bundle.
 */
export type BodyRenderer = typeof bodyOfMemberPage;
let renderBody: BodyRenderer | null = null;

/** Set on a member page made from a kept frame (for operators and the tests). */
export const MEMBER_FRAME_HEADER = 'x-member-frame';

/**
 * Sends the member page for this request from its kept frame and a fresh body (src/server/pages/member-frame.ts),
 * with the headers src/middleware.ts gives an Astro render (CSP of its inline scripts, `private, no-cache`,
 * compressed in one call). False when the page must go through Astro: no frame yet (then this render's layout
 * is captured as one), an Accept-Encoding only the compression middleware negotiates, or no body of its own.
 * `locals.pageData` must hold the page's loaded data.
 */
export async function sendFramed(frames: FrameStore, req: IncomingMessage, res: ServerResponse, locals: App.Locals, user: SessionUser, pageUrl: URL, pathname: string): Promise<boolean> {
  const data = locals.pageData;
  const encoding = plainEncoding(req.headers['accept-encoding']);
  if (!data || encoding === undefined) return false;
  const { ctx } = locals;
  const apiSignupComplete = pageUrl.searchParams.has('api_signup_complete');
  const key = frameKey({
    siteId: ctx.site.id, requestOrigin: ctx.requestOrigin, locale: ctx.locale, country: ctx.country,
    pattern: framePattern(pathname), apiSignupComplete, year: new Date().getUTCFullYear(),
  });
  // The member parts of the layout, as Default.astro writes them (src/server/pages/layout-parts.ts).
  const memberParts = (layout: NonNullable<App.Locals['memberLayout']>) => memberLayoutParts({
    site: ctx.site, locale: ctx.locale, country: ctx.country, user, pushKey: locals.services.app.push.publicKey ?? null, ...layout,
  });
  const frame = frames.get(key);
  if (!frame) {
    // Astro renders this view; the middleware hands the page and its body here to keep the layout, cut at
    // the member parts its layout wrote (locals.memberLayout: what it wrote them from).
    locals.frameCapture = (page, body, renderer) => {
      renderBody = renderer;
      const layout = locals.memberLayout;
      if (!layout) return;
      const captured = captureFrame(page, { title: layoutTitle(user, body.title), body: body.html, ...memberParts(layout) }, layout.route);
      if (captured) frames.set(key, captured);
    };
    return false;
  }
  const render = renderBody;
  const body = render ? render(locals, pageUrl, req.headers.cookie, data) : null;
  if (!body) return false;
  // In a new member's first four hours the layout shows the time bonus (its banner, and the shell's answer
  // with the server's clock).
  const timeBonus = inTimeBonusWindow(user, locals.services.app.clock.now()) ? await loadTimeBonusAnswer(locals) : null;
  const fill = { title: layoutTitle(user, body.title), body: body.html, ...memberParts({ route: frame.route, apiSignupComplete, timeBonus }) };
  const page = fillFrame(frame, fill);
  res.statusCode = body.status;
  res.setHeader('Content-Type', 'text/html');
  res.setHeader('Content-Security-Policy', contentSecurityPolicy(frameScriptHashes(frame, fill)));
  res.setHeader('Cache-Control', PAGE_CACHE_CONTROL);
  const sent = await compressedPage(page, encoding);
  if (sent.encoding) res.setHeader('Content-Encoding', sent.encoding);
  // As the compression middleware says of every answer it could have compressed.
  res.appendHeader('Vary', 'Accept-Encoding');
  res.setHeader('Content-Length', Buffer.byteLength(sent.body));
  res.setHeader(MEMBER_FRAME_HEADER, 'filled');
  res.end(sent.body);
  return true;
}
