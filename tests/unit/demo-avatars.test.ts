import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AGE_CUES_FROM, ageCues, avatarOptions, avatarSvg, extraPhotoSvg, FEMALE_OLDER_TOPS, FEMALE_TOPS, GREY_HAIR, greyed, MALE_OLDER_TOPS, MALE_TOPS, OLDER_AGE,
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

describe('age cues start around 40 and grow with age', () => {
  const brightness = (hex: string) => [0, 2, 4].reduce((sum, i) => sum + Number.parseInt(hex.slice(i, i + 2), 16), 0);
  const share = (age: number, has: (o: ReturnType<typeof avatarOptions>, svg: string) => boolean) =>
    seeds.filter((s) => has(avatarOptions({ gender: 'female', age, hair_color: 'brown' }, s), avatarSvg({ gender: 'female', age, hair_color: 'brown' }, s))).length / seeds.length;

  it('shows nothing under 40, then grey, glasses and lines that only grow', () => {
    expect(ageCues(AGE_CUES_FROM - 1)).toEqual({ grey: 0, glasses: 12, lines: 0, mature: false });
    let last = ageCues(AGE_CUES_FROM, 's');
    expect(last.mature).toBe(true);
    expect(last.grey).toBeGreaterThan(0);
    expect(last.lines).toBeGreaterThanOrEqual(1);
    for (let age = AGE_CUES_FROM + 1; age <= 90; age++) {
      const cues = ageCues(age, 's');
      expect(cues.grey).toBeGreaterThanOrEqual(last.grey);
      expect(cues.glasses).toBeGreaterThanOrEqual(last.glasses);
      expect(cues.lines).toBeGreaterThanOrEqual(last.lines);
      last = cues;
    }
    expect(ageCues(70, 's')).toMatchObject({ grey: 1, lines: 3 });
  });

  it('draws a 45-year-old older than a 25-year-old and younger than a 65-year-old', () => {
    const hair = (age: number) => seeds.reduce((sum, s) => sum + brightness(avatarOptions({ gender: 'female', age, hair_color: 'brown' }, s).hairColor[0]), 0);
    expect(hair(45)).toBeGreaterThan(hair(25));
    expect(hair(65)).toBeGreaterThan(hair(45));
    const glasses = (age: number) => share(age, (o) => o.accessoriesProbability === 100);
    expect(glasses(45)).toBeGreaterThan(glasses(25) * 2);
    expect(glasses(65)).toBeGreaterThan(glasses(45));
    const lines = (age: number) => share(age, (_o, svg) => svg.includes('data-age-lines'));
    expect(lines(25)).toBe(0);
    expect(lines(42)).toBe(1);
    expect(avatarSvg({ gender: 'male', age: 68, hair_color: 'grey' }, 'x')).toContain('data-age-lines="3"');
    expect(avatarSvg({ gender: 'male', age: 52, hair_color: 'black' }, 'x')).toContain('data-age-lines="2"');
  });

  it('mixes grey into the hair colour by share', () => {
    expect(greyed('2c1b18', 0, 'e8e1e1')).toBe('2c1b18');
    expect(greyed('2c1b18', 1, 'e8e1e1')).toBe('e8e1e1');
    expect(brightness(greyed('2c1b18', 0.5, 'e8e1e1'))).toBeGreaterThan(brightness('2c1b18'));
  });

  it('keeps one person the same on all their photos: hair, glasses, beard and lines', () => {
    const subject = { gender: 'male' as const, age: 47, hair_color: 'brown' };
    const main = avatarSvg(subject, 'same');
    const hair = avatarOptions(subject, 'same').hairColor[0];
    for (let i = 1; i < 6; i++) {
      const other = extraPhotoSvg(subject, 'same', i);
      expect(other).toContain(`#${hair}`);
      expect(other.match(/data-age-lines="\d"/)?.[0]).toBe(main.match(/data-age-lines="\d"/)?.[0]);
    }
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
