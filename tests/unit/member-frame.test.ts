import { describe, expect, it } from 'vitest';
import { escapeAttribute, escapeText, html, raw } from '../../src/server/pages/html';
import { captureFrame, fillFrame, FrameStore, framePattern, frameScriptHashes } from '../../src/server/pages/member-frame';
import { inlineScriptHashes } from '../../src/server/security-headers';

// A page as Astro renders a member page: the title in three places (text and attributes), the body in <main>.
function page(title: { text: string; attribute: string }, body: string, extra = '') {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title.text}</title>`
    + `<meta property="og:title" content="${title.attribute}"><meta name="twitter:title" content="${title.attribute}">`
    + `<script>console.log(1)</script></head><body><nav>(2) badge</nav><main id="main" tabindex="-1">${body}</main>`
    + `<footer>${extra}</footer><script type="module" src="/_astro/x.js"></script><script>boot()</script></body></html>`;
}
const as = (t: string) => ({ text: escapeText(t), attribute: escapeAttribute(t) });

describe('member page frames', () => {
  it('keeps the layout around the body and title, and fills it with another page\'s exactly as Astro would write it', () => {
    const first = page(as('(2) Members · Kindred'), '<p>first</p>');
    const frame = captureFrame(first, '<p>first</p>', '(2) Members · Kindred');
    expect(frame).not.toBeNull();
    if (!frame) return;
    const title = `(2) Tom & "Jerry" <3 · O'Neil`;
    const body = '<article>second <script type="application/json">{"a":1}</script><script>run()</script></article>';
    expect(fillFrame(frame, title, body)).toBe(page({
      text: '(2) Tom &amp; &quot;Jerry&quot; &lt;3 · O&#39;Neil', attribute: '(2) Tom &#38; &#34;Jerry&#34; <3 · O\'Neil',
    }, body));
    // The CSP lists the inline scripts of the filled page, in page order.
    expect(frameScriptHashes(frame, body)).toEqual(inlineScriptHashes(fillFrame(frame, title, body)));
  });

  it('keeps nothing it could not cut exactly', () => {
    const title = 'Members · Kindred';
    // The body twice on the page, or not at all.
    expect(captureFrame(page(as(title), '<p>x</p>', '<p>x</p>'), '<p>x</p>', title)).toBeNull();
    expect(captureFrame(page(as(title), '<p>x</p>'), '<p>y</p>', title)).toBeNull();
    expect(captureFrame(page(as(title), ''), '', title)).toBeNull();
    // A title other than the one the page shows (the count differs), or a title place missing.
    expect(captureFrame(page(as(title), '<p>x</p>'), '<p>x</p>', `(1) ${title}`)).toBeNull();
    expect(captureFrame(page(as(title), '<p>x</p>').replace('<meta name="twitter:title"', '<meta name="twitter:x"'), '<p>x</p>', title)).toBeNull();
  });

  it('in the time-bonus hours, keeps the shell\'s server clock as a hole', () => {
    const shell = (now: number) => `<script type="application/json" id="member-shell-data">{"timeBonus":{"time_bonus":{"deadline":9,"server_now":${now}}}}</script>`;
    const title = 'Members · Kindred';
    const first = page(as(title), '<p>x</p>', shell(1234));
    expect(captureFrame(first, '<p>x</p>', title, 999)).toBeNull();
    const frame = captureFrame(first, '<p>x</p>', title, 1234);
    expect(frame).not.toBeNull();
    if (frame) expect(fillFrame(frame, title, '<p>y</p>', 5678)).toBe(page(as(title), '<p>y</p>', shell(5678)));
  });

  it('shares one frame between the pages of one route shape', () => {
    expect(framePattern('/members/742')).toBe('/members/:id');
    expect(framePattern('/members')).toBe('/members');
    expect(framePattern('/likes/given')).toBe('/likes/given');
    expect(framePattern('/chats/12/x')).toBe('/chats/:id/x');
  });

  it('drops the least recently used frames beyond its bytes', () => {
    const store = new FrameStore(100, 10);
    const frame = (bytes: number) => ({ parts: ['x'.repeat(bytes)], holes: [], scriptsBefore: [], scriptsAfter: [], bytes });
    store.set('a', frame(40));
    store.set('b', frame(40));
    expect(store.get('a')).toBeDefined();
    store.set('c', frame(40));
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBeDefined();
    expect(store.get('c')).toBeDefined();
    expect(store.size).toBe(2);
  });
});

describe('html', () => {
  it('escapes every value as Astro escapes text, keeps markup made here and drops empty values', () => {
    const name = `<img src=x onerror="alert('x')">&`;
    expect(html`<p title="${name}">${name}</p>`.html).toBe('<p title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;">&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;</p>');
    expect(html`<ul>${['a', 'b'].map((x) => html`<li>${x}</li>`)}</ul>${false}${null}${undefined}${raw('<b>kept</b>')}${0}`.html)
      .toBe('<ul><li>a</li><li>b</li></ul><b>kept</b>0');
  });
});
