/**
 * HTML built from strings on the server, for the parts of member pages rendered outside Astro
 * (src/server/pages/bodies, src/server/pages/member-frame.ts). Every interpolated value is escaped
 * as Astro escapes text (`&<>'"`, the html-escaper rules), unless it is markup made here (`Html`).
 */
export class Html {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&#39;', '"': '&quot;' };
const ESCAPED = /[&<>'"]/g;
const NEEDS_ESCAPE = /[&<>'"]/;

/** Text and attribute values as Astro writes `{value}` in a template. */
export function escapeText(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, (c) => ESCAPES[c] as string) : value;
}

/** An attribute value as Astro writes `attr={value}` (only `&` and `"` are replaced). */
export function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&#38;').replace(/"/g, '&#34;');
}

/** Markup already made (an island's render, JSON made safe for a script element). */
export const raw = (markup: string) => new Html(markup);

function part(value: unknown): string {
  if (value instanceof Html) return value.html;
  if (value === null || value === undefined || value === false || value === true) return '';
  if (Array.isArray(value)) return value.map(part).join('');
  return escapeText(String(value));
}

/** `html\`<p class="x">${text}</p>\``: values escaped, `Html` values and arrays of them kept. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += part(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}
