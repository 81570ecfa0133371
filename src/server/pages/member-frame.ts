import { createHash } from 'node:crypto';
import { titleWithCount } from '../../shared/constants';
import type { SessionUser } from '../../shared/user.contract';
import { inlineScriptHashes } from '../security-headers';
import { escapeAttribute, escapeText } from './html';

/**
 * Member pages rendered without Astro's per-request pipeline (issue 14: a render through Astro costs
 * about twenty times a static page, half of it Astro's own work — web Request/Response, streams,
 * middleware, a component instance per component — whatever the page shows).
 *
 * A member page is its layout (head, navigation, banners, footer, scripts: src/layouts/Default.astro)
 * around a body (src/server/pages/bodies: the inside of `<main>` and the title). The body is a plain
 * function of the page's loaded data, the member and the request. The layout is a function of its own
 * inputs only — site, host, language, country, the page's route, the member as the session describes
 * them (badges, credits, alerts, the live shell's data), the year and the `api_signup_complete` flag —
 * which are the *frame key* here. So once Astro has rendered a page, the layout around its body is kept
 * as a *frame* (the page cut at the body and at the title's three places), and the next view with the
 * same frame key is the frame filled with a freshly made body: byte for byte what Astro would send
 * (checked at capture: the frame filled with the captured page's own body and title must give that page
 * back, or it is not kept; tests/e2e/member-frames.spec.ts compares both paths page by page).
 *
 * What still goes through Astro: the first view of each frame key (after a change of badges, credits
 * or alerts, a new process, another language …), visitors, the time-bonus hours (the layout's
 * countdown is set from the render's clock), redirects, rewrites (404) and error pages.
 */

/** One kept layout: the page around its holes, and the inline-script hashes of its parts for the CSP. */
export interface Frame {
  /** Text between the holes: `parts.length === holes.length + 1`. */
  parts: string[];
  holes: Hole[];
  /** CSP hashes of the inline scripts before and after the body. */
  scriptsBefore: string[];
  scriptsAfter: string[];
  bytes: number;
}

type Hole = 'title-text' | 'title-attribute' | 'body' | 'server-now';

export interface FrameInputs {
  siteId: string;
  requestOrigin: string;
  locale: string;
  country: string | null;
  /** The path with its ids as `:id` (one Astro page, one set of scripts and styles). */
  pattern: string;
  user: SessionUser;
  /** The time-bonus answer the layout shows (its first four hours), without its `server_now`: a hole of the frame. */
  timeBonus: unknown;
  apiSignupComplete: boolean;
  year: number;
}

/** The path's shape: ids replaced, so every profile's page shares the one frame of /members/{id}. */
export const framePattern = (pathname: string) => pathname.replace(/\/\d{1,12}(?=\/|$)/g, '/:id');

export function frameKey(inputs: FrameInputs): string {
  return createHash('sha256')
    .update(JSON.stringify([inputs.siteId, inputs.requestOrigin, inputs.locale, inputs.country, inputs.pattern, inputs.apiSignupComplete, inputs.year]))
    .update('\n')
    .update(JSON.stringify(inputs.user))
    .update('\n')
    .update(JSON.stringify(inputs.timeBonus ?? null))
    .digest('base64url');
}

/** The title as the layout writes it: the page's, with the member's unread count. */
export const layoutTitle = (user: SessionUser, pageTitle: string) => titleWithCount(pageTitle, user.unread_messages + user.new_likes);

const TITLE_PLACES: { hole: Hole; before: string; after: string; escape: (s: string) => string }[] = [
  { hole: 'title-text', before: '<title>', after: '</title>', escape: escapeText },
  { hole: 'title-attribute', before: '<meta property="og:title" content="', after: '">', escape: escapeAttribute },
  { hole: 'title-attribute', before: '<meta name="twitter:title" content="', after: '">', escape: escapeAttribute },
];

/** Where the shell's time-bonus answer carries the server's clock (src/layouts/Default.astro). */
const serverNowMarker = (serverNow: number) => `"server_now":${serverNow}`;

/**
 * The frame of a page Astro rendered with `body` inside its layout and `title` (as the layout wrote it),
 * and, in the time-bonus hours, the `serverNow` of the answer its layout shows; null when the page cannot
 * be cut exactly (the body, a title place or the clock not found once, or the frame filled again not
 * giving the same page).
 */
export function captureFrame(page: string, body: string, title: string, serverNow: number | null = null): Frame | null {
  const at = page.indexOf(body);
  if (at < 0 || page.indexOf(body, at + 1) >= 0 || body.length === 0) return null;
  const head = page.slice(0, at);
  const tail = page.slice(at + body.length);
  const parts: string[] = [];
  const holes: Hole[] = [];
  let rest = head;
  for (const place of TITLE_PLACES) {
    const marker = place.before + place.escape(title) + place.after;
    const found = rest.indexOf(marker);
    if (found < 0 || rest.indexOf(marker, found + 1) >= 0) return null;
    parts.push(rest.slice(0, found + place.before.length));
    holes.push(place.hole);
    rest = rest.slice(found + marker.length - place.after.length);
  }
  parts.push(rest);
  holes.push('body');
  if (serverNow === null) parts.push(tail);
  else {
    const marker = serverNowMarker(serverNow);
    const found = tail.indexOf(marker);
    if (found < 0 || page.indexOf(marker) !== at + body.length + found || tail.indexOf(marker, found + 1) >= 0) return null;
    parts.push(tail.slice(0, found + marker.length - String(serverNow).length));
    holes.push('server-now');
    parts.push(tail.slice(found + marker.length));
  }
  const frame: Frame = {
    parts, holes, scriptsBefore: inlineScriptHashes(head), scriptsAfter: inlineScriptHashes(tail),
    bytes: parts.reduce((sum, p) => sum + p.length, 0),
  };
  return fillFrame(frame, title, body, serverNow ?? 0) === page ? frame : null;
}

/** The page: the frame with this title, body and (in the time-bonus hours) server clock in its holes. */
export function fillFrame(frame: Frame, title: string, body: string, serverNow = 0): string {
  const text = escapeText(title);
  const attribute = escapeAttribute(title);
  let out = frame.parts[0] as string;
  for (let i = 0; i < frame.holes.length; i++) {
    const hole = frame.holes[i];
    out += (hole === 'body' ? body : hole === 'title-text' ? text : hole === 'server-now' ? String(serverNow) : attribute) + frame.parts[i + 1];
  }
  return out;
}

/** The inline-script hashes of the filled page, in page order (as the CSP middleware lists them). */
export const frameScriptHashes = (frame: Frame, body: string) => [...frame.scriptsBefore, ...inlineScriptHashes(body), ...frame.scriptsAfter];

/** Frames by key, least recently used dropped first, at most `maxBytes` in all. */
export class FrameStore {
  readonly #frames = new Map<string, Frame>();
  #bytes = 0;
  constructor(readonly maxBytes = 32 * 1024 * 1024, readonly maxEntries = 20_000) {}

  get(key: string): Frame | undefined {
    const frame = this.#frames.get(key);
    if (frame) {
      this.#frames.delete(key);
      this.#frames.set(key, frame);
    }
    return frame;
  }

  set(key: string, frame: Frame): void {
    this.delete(key);
    while (this.#frames.size > 0 && (this.#frames.size >= this.maxEntries || this.#bytes + frame.bytes > this.maxBytes)) {
      this.delete(this.#frames.keys().next().value as string);
    }
    this.#frames.set(key, frame);
    this.#bytes += frame.bytes;
  }

  delete(key: string): void {
    const frame = this.#frames.get(key);
    if (!frame) return;
    this.#frames.delete(key);
    this.#bytes -= frame.bytes;
  }

  get size(): number {
    return this.#frames.size;
  }
}
