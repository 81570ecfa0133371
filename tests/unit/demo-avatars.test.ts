import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  avatarOptions, FEMALE_OLDER_TOPS, FEMALE_TOPS, GREY_HAIR, MALE_OLDER_TOPS, MALE_TOPS, OLDER_AGE,
} from '../../src/server/db/demo-avatars';
import { PHOTO_PLACEHOLDER, photoUrl } from '../../src/shared/profiles.contract';

const seeds = Array.from({ length: 200 }, (_x, i) => `seed-${i}`);
const MALE = new Set<string>([...MALE_TOPS, ...MALE_OLDER_TOPS]);
const FEMALE = new Set<string>([...FEMALE_TOPS, ...FEMALE_OLDER_TOPS]);

describe('demo avatars fit gender and age', () => {
  it('draws men with short men\'s hair (no ponytail, bun or long hair) and women never with a beard', () => {
    for (const seed of seeds) {
      const man = avatarOptions({ gender: 'male', age: 30, hair_color: 'brown' }, seed);
      expect(MALE.has(man.top[0]), man.top[0]).toBe(true);
      expect(FEMALE.has(man.top[0])).toBe(false);
      const woman = avatarOptions({ gender: 'female', age: 30, hair_color: 'brown' }, seed);
      expect(FEMALE.has(woman.top[0]), woman.top[0]).toBe(true);
      expect(woman.facialHairProbability).toBe(0);
    }
  });

  it('gives older members grey hair, older styles, and more beards and glasses than young ones', () => {
    const count = (f: (s: string) => boolean) => seeds.filter(f).length;
    for (const seed of seeds) {
      const old = avatarOptions({ gender: 'male', age: 66, hair_color: 'grey' }, seed);
      expect(MALE_OLDER_TOPS as readonly string[]).toContain(old.top[0]);
      expect(GREY_HAIR as readonly string[]).toContain(old.hairColor[0]);
      const oldWoman = avatarOptions({ gender: 'female', age: OLDER_AGE, hair_color: 'white' }, seed);
      expect(FEMALE_OLDER_TOPS as readonly string[]).toContain(oldWoman.top[0]);
      expect(GREY_HAIR as readonly string[]).toContain(oldWoman.hairColor[0]);
    }
    const beards = (age: number) => count((s) => avatarOptions({ gender: 'male', age, hair_color: 'grey' }, s).facialHairProbability === 100);
    const glasses = (age: number) => count((s) => avatarOptions({ gender: 'female', age, hair_color: 'brown' }, s).accessoriesProbability === 100);
    expect(beards(66)).toBeGreaterThan(beards(25) * 1.5);
    expect(glasses(66)).toBeGreaterThan(glasses(25) * 2);
  });

  it('uses the profile\'s hair colour for younger members and draws bald men without hair', () => {
    expect(avatarOptions({ gender: 'female', age: 25, hair_color: 'red' }, 'a').hairColor).toEqual(['c93305']);
    expect(avatarOptions({ gender: 'male', age: 25, hair_color: 'blond' }, 'a').hairColor).toEqual(['d6b370']);
    expect(avatarOptions({ gender: 'male', age: 60, hair_color: 'bald' }, 'a').topProbability).toBe(0);
    expect(avatarOptions({ gender: 'female', age: 60, hair_color: 'bald' }, 'a').topProbability).toBe(100);
  });
});

describe('profiles without a photo', () => {
  it('show a neutral silhouette, never the site logo', () => {
    expect(photoUrl(null)).toBe(PHOTO_PLACEHOLDER);
    expect(photoUrl('avatars/1.svg')).toBe('/uploads/avatars/1.svg');
    expect(readFileSync(`public${PHOTO_PLACEHOLDER}`, 'utf8')).toMatch(/^<svg[^>]*viewBox/);
    // No screen falls back to the favicon (the logo) for a missing photo any more.
    expect(execSync("grep -rlE \"thumb.*'/favicon.svg'|filename.*'/favicon.svg'|photo.*'/favicon.svg'\" src || true").toString().trim()).toBe('');
  });
});
