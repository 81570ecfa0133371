import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeNextPath } from '../../src/shared/redirect';

const ORIGIN = 'https://kindred.example';

// Known open-redirect payloads (after the query string has been decoded once, as searchParams does).
const PAYLOADS = [
  '//evil.example', '///evil.example', '////evil.example', '/\\evil.example', '/\\/evil.example', '\\\\evil.example',
  '/\t/evil.example', '/\n/evil.example', '/\r\n/evil.example', '\t//evil.example', ' //evil.example', '/\u0000/evil.example',
  '/%09/evil.example'.replace('%09', '\t'), 'https://evil.example', 'http:evil.example', 'javascript:alert(1)', '//evil.example/%2F..',
  '/..//evil.example', '/./..//evil.example', '/%2e%2e//evil.example', 'evil.example', '', '/\u000b/evil.example', '/\u0085/evil.example',
  `/${'a'.repeat(3000)}`,
];

describe('safeNextPath', () => {
  it.each(PAYLOADS)('refuses %j', (payload) => {
    expect(safeNextPath(payload, ORIGIN)).toBeNull();
  });

  it('keeps same-site paths with their query and hash', () => {
    expect(safeNextPath('/members', ORIGIN)).toBe('/members');
    expect(safeNextPath('/chats/12?x=1#end', ORIGIN)).toBe('/chats/12?x=1#end');
    expect(safeNextPath('/%2F%2Fevil.example', ORIGIN)).toBe('/%2F%2Fevil.example'); // a path on our site, never a host
    expect(safeNextPath('/likes/../members', ORIGIN)).toBe('/members');
  });

  it('refuses non-strings', () => {
    for (const value of [null, undefined, 1, {}, ['/members']]) expect(safeNextPath(value, ORIGIN)).toBeNull();
  });

  it('never returns anything a browser would read as another host', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('/', '\\', '.', '%', '2', 'F', 'e', ':', '\t', '@', 'x', '?', '#', ' ') , maxLength: 12 }), (tail) => {
        const result = safeNextPath(`/${tail}`, ORIGIN);
        if (result === null) return;
        expect(result.startsWith('/')).toBe(true);
        expect(result.startsWith('//')).toBe(false);
        expect(result).not.toMatch(/[\\\t\r\n]/);
        expect(new URL(result, ORIGIN).origin).toBe(ORIGIN);
      }),
      { numRuns: 2000 },
    );
  });
});
