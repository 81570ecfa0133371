import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inlineScriptHashes } from '../../src/server/security-headers';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('inline script hashes (the CSP of every page)', () => {
  it('hashes each inline script in page order, and no script with src or JSON data block', () => {
    const page = [
      '<head><script>theme()</script><script type="module" src="/_astro/a.js"></script></head>',
      '<script type="application/json" id="x-data">{"a":"\\u003cscript>alert(1)\\u003c/script>"}</script>',
      '<script type="application/ld+json">{"@type":"Person"}</script>',
      '<SCRIPT type="module">start()</SCRIPT>',
    ].join('');
    expect(inlineScriptHashes(page)).toEqual([hash('theme()'), hash('start()')]);
  });

  it('reads the type from the tag, not from the script text', () => {
    const script = 'const t = \'type="application/json"\';';
    expect(inlineScriptHashes(`<script>${script}</script>`)).toEqual([hash(script)]);
  });

  it('has none for a page without scripts or with an unclosed one', () => {
    expect(inlineScriptHashes('<p>no scripts</p>')).toEqual([]);
    expect(inlineScriptHashes('<script>never closed')).toEqual([]);
  });
});
