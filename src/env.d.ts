/// <reference types="astro/client" />
declare namespace App {
  interface Locals {
    ctx: import('./server/context/request-context').RequestContext;
    t: import('i18next').TFunction;
    user: import('./shared/user.contract').SessionUser | null;
    /** The signed-in member as the node entry's session lookup read it (User row, profile's id, name, gender, sexuality …); set whenever `user` is. Loaders read it instead of the database. */
    session?: import('./server/accounts/session-cache').SessionMember;
    services: { app: import('./server/app-context').AppContext; accounts: import('./server/accounts/accounts.service').AccountsDeps };
    /** Why the request is bad input (a path that does not decode …); src/pages/request-error.astro shows it. */
    pageProblem?: import('./server/pages/request-guard').PageRequestProblem;
    /** A member page's data, loaded by the node entry before the render (src/server/pages/member-page-data.ts). */
    pageData?: import('./server/pages/member-page-data').MemberPageData;
    /** The member's time-bonus answer when the node entry already asked for it (the layout shows it). */
    timeBonus?: import('./shared/payments.contract').TimeBonusResponse;
    /** What a member page's layout wrote its member parts from (src/server/pages/layout-parts.ts), for the frame store. */
    memberLayout?: { route: string; apiSignupComplete: boolean; timeBonus: import('./shared/payments.contract').TimeBonusResponse | null };
    /** The body a member page rendered inside its layout (src/server/pages/bodies), for the frame store. */
    memberBody?: import('./server/pages/bodies/body').MemberBody;
    /** Set by the node entry when this render's layout may be kept as a frame (src/server/pages/member-frame.ts). */
    frameCapture?: (html: string, body: import('./server/pages/bodies/body').MemberBody, renderer: import('./server/pages/framed-page').BodyRenderer) => void;
  }
}

/** mjml 4.x (CommonJS, synchronous); only what src/server/mail uses. */
declare module 'mjml' {
  interface MjmlResult { html: string; errors: { formattedMessage: string }[] }
  export default function mjml2html(source: string, options?: { validationLevel?: 'strict' | 'soft' | 'skip'; keepComments?: boolean }): MjmlResult;
}
