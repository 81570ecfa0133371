import { titleWithCount } from '../../shared/constants';
import type { SessionUser } from '../../shared/user.contract';
import { inlineScriptHashes } from '../security-headers';
import { escapeAttribute, escapeText } from './html';

/**
 * Member pages rendered without Astro's per-request pipeline (issue 14: a render through Astro costs
 * about twenty times a static page, half of it Astro's own work — web Request/Response, streams,
 * middleware, a component instance per component — whatever the page shows; issue 28: a member's first
 * view too).
 *
 * A member page is its layout (head, navigation, banners, footer, scripts: src/layouts/Default.astro)
 * around a body (src/server/pages/bodies: the inside of `<main>` and the title). The body is a plain
 * function of the page's loaded data, the member and the request. The parts of the layout that show the
 * member — the title's count, the top navigation (badges, credits, Get Premium, the name's initial), the
 * member's alerts (activation, time bonus, photo, push offer, notifications) and the members' shell data
 * (the member, the time bonus with the server's clock) — are plain functions too (layoutTitle here,
 * src/server/pages/layout-parts.ts, which Astro's components render through). The rest of the layout is a
 * function of its own inputs only — site, host, language, country, the page's route, the year and the
 * `api_signup_complete` flag — which are the *frame key* here. So once Astro has rendered a page, the
 * layout around its member parts and body is kept as a *frame* (the page cut at the title's three places,
 * the navigation, the alerts, the body and the shell data), one per site, language, country and route
 * pattern, holding nothing of the member, and every view with the same frame key — any member's, their
 * first too — is the frame filled with those parts and a body made for that view: byte for byte what Astro
 * would send (checked at capture: the frame filled with the captured page's own parts must give that page
 * and its script hashes back, or it is not kept; tests/e2e/member-frames.spec.ts compares both paths page
 * by page, for two members).
 *
 * What still goes through Astro: the first view of each frame key (a new process, another language or
 * site …), visitors, redirects, rewrites (404) and error pages.
 */

/** One kept layout: the page around its holes, the inline-script hashes of its parts for the CSP, the layout's route. */
export interface Frame {
  /** Text between the holes: `parts.length === holes.length + 1`. */
  parts: string[];
  holes: Hole[];
  /** CSP hashes of the inline scripts of each part. */
  scripts: string[][];
  /** The layout's route (Default.astro's `route`: the member's alerts depend on it). */
  route: string;
  bytes: number;
}

type Hole = 'title-text' | 'title-attribute' | 'top-nav' | 'alerts' | 'body' | 'shell';

/** What fills a frame's holes: the page's title (as the layout writes it), its body and the member parts of its layout. */
export interface FrameFill {
  title: string;
  body: string;
  /** src/server/pages/layout-parts.ts (memberLayoutParts). */
  topNav: string;
  alerts: string;
  shell: string;
}

/** What the layout of a member page shows besides the member: its frame is kept by these. */
export interface FrameInputs {
  siteId: string;
  requestOrigin: string;
  locale: string;
  country: string | null;
  /** The path with its ids as `:id` (one Astro page, one set of scripts and styles, one layout route). */
  pattern: string;
  apiSignupComplete: boolean;
  year: number;
}

/** The path's shape: ids replaced, so every profile's page shares the one frame of /members/{id}. */
export const framePattern = (pathname: string) => pathname.replace(/\/\d{1,12}(?=\/|$)/g, '/:id');

/** The frame's key: its inputs as one string (the origin passed the host check, so a key stays short). */
export function frameKey(inputs: FrameInputs): string {
  return JSON.stringify([inputs.siteId, inputs.requestOrigin, inputs.locale, inputs.country, inputs.pattern, inputs.apiSignupComplete, inputs.year]);
}

/** The title as the layout writes it: the page's, with the member's unread count. */
export const layoutTitle = (user: SessionUser, pageTitle: string) => titleWithCount(pageTitle, user.unread_messages + user.new_likes);

const TITLE_PLACES: { hole: Hole; before: string; after: string; escape: (s: string) => string }[] = [
  { hole: 'title-text', before: '<title>', after: '</title>', escape: escapeText },
  { hole: 'title-attribute', before: '<meta property="og:title" content="', after: '">', escape: escapeAttribute },
  { hole: 'title-attribute', before: '<meta name="twitter:title" content="', after: '">', escape: escapeAttribute },
];
const MARKUP_HOLES = [['top-nav', 'topNav'], ['alerts', 'alerts'], ['body', 'body'], ['shell', 'shell']] as const;

/** The text a hole takes from a fill. */
function holeText(hole: Hole, fill: FrameFill): string {
  switch (hole) {
    case 'title-text':
      return escapeText(fill.title);
    case 'title-attribute':
      return escapeAttribute(fill.title);
    case 'top-nav':
      return fill.topNav;
    default:
      return fill[hole];
  }
}

/** Where `text` is in `page`, when it is there exactly once. */
function onlyPlace(page: string, text: string): number | null {
  const at = page.indexOf(text);
  return text.length > 0 && at >= 0 && page.indexOf(text, at + 1) < 0 ? at : null;
}

/**
 * The frame of a page Astro rendered from `fill` (its title as the layout wrote it, its body and the member
 * parts of its layout) with the layout's `route`; null when the page cannot be cut exactly (a hole's text not
 * found once, or the frame filled again not giving the same page and the same script hashes).
 */
export function captureFrame(page: string, fill: FrameFill, route: string): Frame | null {
  const cuts: { at: number; end: number; hole: Hole }[] = [];
  for (const place of TITLE_PLACES) {
    const text = place.escape(fill.title);
    const found = onlyPlace(page, place.before + text + place.after);
    if (found === null) return null;
    cuts.push({ at: found + place.before.length, end: found + place.before.length + text.length, hole: place.hole });
  }
  for (const [hole, field] of MARKUP_HOLES) {
    const found = onlyPlace(page, fill[field]);
    if (found === null) return null;
    cuts.push({ at: found, end: found + fill[field].length, hole });
  }
  cuts.sort((a, b) => a.at - b.at);
  const parts: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    if (cut.at < from) return null;
    parts.push(page.slice(from, cut.at));
    from = cut.end;
  }
  parts.push(page.slice(from));
  const frame: Frame = {
    parts, holes: cuts.map((c) => c.hole), scripts: parts.map(inlineScriptHashes), route,
    bytes: parts.reduce((sum, p) => sum + p.length, 0),
  };
  const same = fillFrame(frame, fill) === page && frameScriptHashes(frame, fill).join(' ') === inlineScriptHashes(page).join(' ');
  return same ? frame : null;
}

/** The page: the frame with this fill in its holes. */
export function fillFrame(frame: Frame, fill: FrameFill): string {
  let out = frame.parts[0] as string;
  for (let i = 0; i < frame.holes.length; i++) out += holeText(frame.holes[i] as Hole, fill) + frame.parts[i + 1];
  return out;
}

/** The inline-script hashes of the filled page, in page order (as the CSP middleware lists them). */
export function frameScriptHashes(frame: Frame, fill: FrameFill): string[] {
  const hashes = [...(frame.scripts[0] as string[])];
  for (let i = 0; i < frame.holes.length; i++) {
    const hole = frame.holes[i] as Hole;
    if (hole !== 'title-text' && hole !== 'title-attribute') hashes.push(...inlineScriptHashes(holeText(hole, fill)));
    hashes.push(...(frame.scripts[i + 1] as string[]));
  }
  return hashes;
}

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
