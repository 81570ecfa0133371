import { describe, expect, it } from 'vitest';
import { escapeAttribute, escapeText, html, raw } from '../../src/server/pages/html';
import { captureFrame, fillFrame, FrameStore, framePattern, frameScriptHashes } from '../../src/server/pages/member-frame';
import { inlineScriptHashes } from '../../src/server/security-headers';

// A page as Astro renders a member page: the title in three places (text and attributes), the member parts
// of the layout (navigation, alerts, shell data) and the body in <main>.
interface Parts { topNav: string; alerts: string; shell: string }
function page(title: { text: string; attribute: string }, body: string, parts: Parts, extra = '') {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title.text}</title>`
    + `<meta property="og:title" content="${title.attribute}"><meta name="twitter:title" content="${title.attribute}">`
    + `<script>console.log(1)</script></head><body>${parts.topNav}<div class="warning-banners"><p>offline</p> ${parts.alerts} </div>`
    + `<main id="main" tabindex="-1">${body}</main><footer>${extra}</footer><script type="module" src="/_astro/x.js"></script><script>boot()</script>`
    + `${parts.shell}</body></html>`;
}
const as = (t: string) => ({ text: escapeText(t), attribute: escapeAttribute(t) });
const shell = (name: string, now: number) => `<script type="application/json" id="member-shell-data">{"user":{"name":"${name}"},"timeBonus":{"time_bonus":{"server_now":${now}}}}</script>`;
const ann: Parts = { topNav: '<header class="topnav"><span class="badge">2</span><span class="avatar">A</span></header>', alerts: '<div class="alert">photo</div><script>dismissed()</script>', shell: shell('Ann', 1234) };
const bob: Parts = { topNav: '<header class="topnav"><span class="avatar">B</span></header>', alerts: '<div class="time-bonus-banner"></div><script>countdown()</script> <script>dismissed()</script>', shell: shell('Bob', 5678) };

describe('member page frames', () => {
  it('keeps the layout around the body, title and member parts, and fills it with another member\'s page exactly as Astro would write it', () => {
    const first = page(as('(2) Members · Kindred'), '<p>first</p>', ann);
    const frame = captureFrame(first, { title: '(2) Members · Kindred', body: '<p>first</p>', ...ann }, 'members');
    expect(frame).not.toBeNull();
    if (!frame) return;
    expect(frame.route).toBe('members');
    // Nothing of the first member is kept.
    expect(frame.parts.join('')).not.toMatch(/Ann|badge|photo|1234/);
    const title = `(2) Tom & "Jerry" <3 · O'Neil`;
    const body = '<article>second <script type="application/json">{"a":1}</script><script>run()</script></article>';
    const fill = { title, body, ...bob };
    expect(fillFrame(frame, fill)).toBe(page({
      text: '(2) Tom &amp; &quot;Jerry&quot; &lt;3 · O&#39;Neil', attribute: '(2) Tom &#38; &#34;Jerry&#34; <3 · O\'Neil',
    }, body, bob));
    // The CSP lists the inline scripts of the filled page (the alerts' among them), in page order.
    expect(frameScriptHashes(frame, fill)).toEqual(inlineScriptHashes(fillFrame(frame, fill)));
    expect(frameScriptHashes(frame, fill)).toHaveLength(5);
  });

  it('keeps nothing it could not cut exactly', () => {
    const title = 'Members · Kindred';
    const fill = { title, body: '<p>x</p>', ...ann };
    // The body twice on the page, or not at all.
    expect(captureFrame(page(as(title), '<p>x</p>', ann, '<p>x</p>'), fill, 'members')).toBeNull();
    expect(captureFrame(page(as(title), '<p>x</p>', ann), { ...fill, body: '<p>y</p>' }, 'members')).toBeNull();
    expect(captureFrame(page(as(title), '', ann), { ...fill, body: '' }, 'members')).toBeNull();
    // A title other than the one the page shows (the count differs), or a title place missing.
    expect(captureFrame(page(as(title), '<p>x</p>', ann), { ...fill, title: `(1) ${title}` }, 'members')).toBeNull();
    expect(captureFrame(page(as(title), '<p>x</p>', ann).replace('<meta name="twitter:title"', '<meta name="twitter:x"'), fill, 'members')).toBeNull();
    // Member parts other than the page's (another member's, another clock), empty, or twice on the page.
    expect(captureFrame(page(as(title), '<p>x</p>', ann), { ...fill, topNav: bob.topNav }, 'members')).toBeNull();
    expect(captureFrame(page(as(title), '<p>x</p>', ann), { ...fill, shell: shell('Ann', 999) }, 'members')).toBeNull();
    expect(captureFrame(page(as(title), '<p>x</p>', { ...ann, alerts: '' }), { ...fill, alerts: '' }, 'members')).toBeNull();
    expect(captureFrame(page(as(title), '<p>x</p>', ann, ann.alerts), fill, 'members')).toBeNull();
  });

  it('shares one frame between the pages of one route shape', () => {
    expect(framePattern('/members/742')).toBe('/members/:id');
    expect(framePattern('/members')).toBe('/members');
    expect(framePattern('/likes/given')).toBe('/likes/given');
    expect(framePattern('/chats/12/x')).toBe('/chats/:id/x');
  });

  it('drops the least recently used frames beyond its bytes', () => {
    const store = new FrameStore(100, 10);
    const frame = (bytes: number) => ({ parts: ['x'.repeat(bytes)], holes: [], scripts: [[]], route: 'members', bytes });
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
