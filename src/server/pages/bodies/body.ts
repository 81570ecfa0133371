import type { Html } from '../html';

/**
 * The inside of a member page's `<main>` and its title, made from the page's loaded data, the member
 * and the request alone — the same function for the Astro page and for the node entry's framed render
 * (src/server/pages/member-frame.ts), so both send the same markup.
 */
export interface MemberBody {
  /** The page title as the page gives it to its layout (the layout adds the badge count). */
  title: string;
  html: string;
  /** 200, or 403 for a refusal shown as a page (a profile whose owner blocked the viewer …). */
  status: number;
}

/** What every body reads besides its data: the request context, translator and member. */
export type BodyLocals = Pick<App.Locals, 'ctx' | 't' | 'user'>;

export const memberBody = (title: string, markup: Html, status = 200): MemberBody => ({ title, html: markup.html, status });

/** The body an Astro page renders, noted for the frame store (src/middleware.ts hands it over with the page). */
export function pageBody(locals: App.Locals, body: MemberBody): MemberBody {
  locals.memberBody = body;
  return body;
}
