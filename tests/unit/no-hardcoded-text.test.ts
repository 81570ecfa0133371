import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOTS = ['src/components', 'src/layouts', 'src/pages', 'src/islands'];
const TEXT_ATTRS = /\b(aria-label|title|alt|placeholder|label)="([^"{]*\p{L}{2,}[^"]*)"/gu;

function files(dir: string): string[] {
  try {
    return readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? files(full) : /\.(astro|tsx)$/.test(name) ? [full] : [];
    });
  } catch {
    return [];
  }
}

/** Removes {…} expressions, honouring nesting, so only literal markup text is left. */
function stripExpressions(source: string): string {
  let out = '';
  let depth = 0;
  for (const ch of source) {
    if (ch === '{') depth++;
    else if (ch === '}') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out;
}

/** JSX text children (`>Hello<`) and literal text attributes anywhere in a TSX file. */
function findJsxText(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  for (const m of code.matchAll(/(?<!=)>([^<>{}()=;`]*)</g)) {
    const text = m[1].trim();
    if (/\p{L}{2,}/u.test(text)) found.push(text);
  }
  for (const m of code.matchAll(TEXT_ATTRS)) found.push(`${m[1]}="${m[2]}"`);
  return found;
}

/** Literal user-facing text in a component: text between tags and text attributes. */
function findHardcodedText(source: string, kind: 'astro' | 'tsx'): string[] {
  let markup = source;
  if (kind === 'tsx') return findJsxText(source);
  markup = markup.replace(/^---[\s\S]*?\n---/, '');
  markup = markup
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<!--[\s\S]*?-->/g, '');
  const found: string[] = [];
  for (const m of markup.matchAll(TEXT_ATTRS)) found.push(`${m[1]}="${m[2]}"`);
  const text = stripExpressions(markup).replace(/<[^>]*>/g, ' ').replace(/&[a-z]+;/g, ' ');
  for (const token of text.split(/\s+/)) if (/\p{L}{2,}/u.test(token)) found.push(token);
  return found;
}

describe('components', () => {
  const all = ROOTS.flatMap(files);
  it('exist', () => expect(all.length).toBeGreaterThan(5));
  it.each(all)('%s has no hard-coded user-facing text', (file) => {
    const kind = file.endsWith('.tsx') ? 'tsx' : 'astro';
    expect(findHardcodedText(readFileSync(file, 'utf8'), kind)).toEqual([]);
  });
  it('the check catches literal text', () => {
    expect(findHardcodedText('---\nconst a = 1;\n---\n<p>Hello there</p>', 'astro')).toEqual(['Hello', 'there']);
    expect(findHardcodedText('<button aria-label="Close">{t("x")}</button>', 'astro')).toEqual(['aria-label="Close"']);
    expect(findHardcodedText('<p>{t("ok")} ♥ 18+</p>', 'astro')).toEqual([]);
    expect(findHardcodedText('const a = x && <p className="a">Hello</p>;', 'tsx')).toEqual(['Hello']);
    expect(findHardcodedText('<button aria-label="Close">{t("x")}</button>', 'tsx')).toEqual(['aria-label="Close"']);
    expect(findHardcodedText('return <p>{t("ok")}</p>;', 'tsx')).toEqual([]);
  });
});
