import { describe, expect, it } from 'vitest';
import { DEMO_ABOUT, demoAbout } from '../../src/server/db/demo-about';
import { LOCALES } from '../../src/shared/locales';

describe('demo profiles\' "about me"', () => {
  it('has three lists of four sentences in every language', () => {
    expect(Object.keys(DEMO_ABOUT).sort()).toEqual([...LOCALES].sort());
    for (const parts of Object.values(DEMO_ABOUT)) {
      expect(parts.map((list) => list.length)).toEqual([4, 4, 4]);
      for (const sentence of parts.flat()) expect(sentence).toMatch(/^\S.*[.!?]$/);
    }
  });

  it("writes in the language of the profile's country, one sentence from each list, and leaves about a fifth empty", () => {
    const texts = Array.from({ length: 5000 }, (_, n) => demoAbout('AT', n * 7919));
    const empty = texts.filter((text) => text === null).length / texts.length;
    expect(empty).toBeGreaterThan(0.15);
    expect(empty).toBeLessThan(0.25);
    const [likes, looking, invite] = DEMO_ABOUT.de!;
    for (const text of texts.filter((t): t is string => t !== null)) {
      expect(likes.some((s) => text.startsWith(s))).toBe(true);
      expect(looking.some((s) => text.includes(` ${s} `))).toBe(true);
      expect(invite.some((s) => text.endsWith(s))).toBe(true);
    }
    // Different people: all 64 combinations occur.
    expect(new Set(texts).size).toBe(65);
    expect(demoAbout('PL', 123_456_789)).toMatch(/[ąęółśżźćń]/);
    expect(demoAbout('XX', 123_456_789)).toMatch(/^[\x20-\x7e’]+$/);
  });
});
