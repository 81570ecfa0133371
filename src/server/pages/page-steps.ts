import type { IncomingMessage, ServerResponse } from 'node:http';
import { getT } from '../../shared/i18n';
import { type AccountsDeps, describeUser, memberForSession } from '../accounts/accounts.service';
import { AUTH_COOKIE } from '../api/session';
import type { AppContext } from '../app-context';
import type { Config } from '../config';
import { cookieValue, createRequestContext } from '../context/request-context';
import type { Exchange, Step } from '../request-pipeline';
import { FrameStore, sendFramed } from './framed-page';
import { memberPageLoader } from './member-page-data';
import { NOT_FOUND, pageRequestProblem, REQUEST_ERROR_PATH } from './request-guard';

/** Astro's server build in middleware mode (dist/server/entry.mjs). */
export type AstroHandler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void, locals: object) => Promise<void>;
/** A connect-style wrapper around the rest of the answer (the compression middleware). */
type Around = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** What the page steps know of a request once its session was looked up. */
export interface PageExchange extends Exchange {
  locals?: App.Locals;
}

/**
 * The node entry's two page steps (src/server/main.ts):
 *
 * - `memberPages`: looks up who asks (the session), and answers a signed-in member's page from its kept
 *   layout frame with a fresh body (src/server/pages/member-frame.ts) when it can; otherwise leaves the
 *   page's locals for Astro.
 * - `astro`: Astro renders the page (its middleware, src/middleware.ts, adds the CSP and compresses);
 *   a path no route matches gets the 404 page, once.
 */
export function createPageSteps(app: AppContext, config: Config, astro: AstroHandler, compress: Around) {
  const accounts: AccountsDeps = { app, mailer: app.mailer, limits: app.limits };
  // Layouts of member pages kept to put fresh bodies in (src/server/pages/member-frame.ts).
  const frames = config.memberFrames ? new FrameStore() : null;

  const memberPages: Step = async (exchange: PageExchange) => {
    const { req, res, url, endpoint } = exchange;
    const ctx = createRequestContext(app.sites, { headers: req.headers }, config, endpoint);
    // Bad input never reaches a page: the error page answers with its 4xx (src/middleware.ts).
    // A path Astro could not even decode is swapped for one it can route.
    const pageProblem = pageRequestProblem(req) ?? undefined;
    if (pageProblem) req.url = REQUEST_ERROR_PATH;
    const token = cookieValue(req.headers.cookie, AUTH_COOKIE);
    // A form post (login, signup without JavaScript …) is answered once its writes are on disk.
    if (req.method !== 'GET' && req.method !== 'HEAD') holdEndUntilDurable(res, app);
    const member = await memberForSession(accounts, ctx.site, token);
    const user = member ? await describeUser(accounts, ctx.site, member.user, member) : null;
    const locals: App.Locals = { ctx, t: getT(ctx.locale), user, session: member, services: { app, accounts }, pageProblem };
    exchange.locals = locals;
    if (user === null) return false;
    // A member's page is made from its kept layout and a fresh body, for a GET without bad input.
    if (frames === null || req.method !== 'GET' || pageProblem) return false;
    const pathname = url.split('?', 1)[0] ?? url;
    const loader = memberPageLoader(pathname);
    if (!loader) return false;
    // Load what the page shows. A load that fails is left to the page, which loads again and fails into
    // Astro's error page.
    const pageUrl = new URL(url, ctx.requestOrigin);
    const loaded = await loader.load(locals, pageUrl).then((value) => ({ value }), () => null);
    if (!loaded) return false;
    locals.pageData = { route: loader.route, value: loaded.value };
    return sendFramed(frames, req, res, locals, user, pageUrl, pathname);
  };

  const astroPages: Step = (exchange: PageExchange) =>
    new Promise<boolean>((resolve, reject) => {
      const { req, res, url } = exchange;
      const locals = exchange.locals;
      if (!locals) return reject(new Error('the page step needs the member step before it'));
      // A path no route matches (Astro hands it back without an error): the 404 page, once.
      const unrouted = (err?: unknown) => {
        if (err !== undefined) return reject(err);
        if (res.headersSent || req.url === REQUEST_ERROR_PATH) return reject(new Error(`no route answered ${url}`));
        req.url = REQUEST_ERROR_PATH;
        astro(req, res, (e) => reject(e ?? new Error(`the 404 page did not answer ${url}`)), { ...locals, pageProblem: NOT_FOUND }).then(() => resolve(true), reject);
      };
      let routed = true;
      compress(req, res, () =>
        void astro(req, res, (err) => {
          routed = false;
          unrouted(err);
        }, locals).then(() => routed && resolve(true), reject),
      );
    });

  return { memberPages, astroPages };
}

/** Delays the end of a response until the database says every write before it is on disk. */
function holdEndUntilDurable(res: ServerResponse, app: AppContext) {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    app.db.durable().then(() => end(...args), (err) => {
      app.logger.error({ err }, 'could not make a write durable');
      res.destroy(err as Error);
    });
    return res;
  }) as typeof res.end;
}
