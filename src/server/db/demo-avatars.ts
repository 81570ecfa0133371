import { avataaars } from '@dicebear/collection';
import { createAvatar } from '@dicebear/core';

/**
 * Generated pictures for the demo population (never real people). The avataaars style is drawn
 * to fit the profile: hairstyles by gender (no long hair or buns on men), grey or white hair,
 * beards and reading glasses for older members, the profile's own hair colour otherwise.
 */
export interface AvatarSubject {
  gender: 'male' | 'female';
  age: number;
  hair_color: string | null;
}


/** Age from which a demo member looks older: grey hair, glasses, a calmer style. */
export const OLDER_AGE = 50;

export const FEMALE_TOPS = ['bob', 'bun', 'curly', 'curvy', 'bigHair', 'frida', 'longButNotTooLong', 'miaWallace', 'straight01', 'straight02', 'straightAndStrand'] as const;
export const FEMALE_OLDER_TOPS = ['bob', 'bun', 'curly', 'miaWallace', 'longButNotTooLong'] as const;
export const MALE_TOPS = ['shortFlat', 'shortRound', 'shortWaved', 'shortCurly', 'theCaesar', 'theCaesarAndSidePart', 'frizzle', 'dreads01'] as const;
export const MALE_OLDER_TOPS = ['sides', 'theCaesar', 'theCaesarAndSidePart', 'shortFlat', 'shortRound'] as const;
export const GREY_HAIR = ['e8e1e1', 'b8b8b8'] as const;
const BEARDS = ['beardLight', 'beardMedium', 'beardMajestic', 'moustacheFancy'] as const;
const GLASSES = ['prescription01', 'prescription02', 'round'] as const;

/** The profile's hair colour as drawn; older members whose hair is not set go grey. */
const HAIR_HEX: Record<string, string> = {
  black: '2c1b18', brown: '724133', blond: 'd6b370', red: 'c93305', grey: 'b8b8b8', white: 'e8e1e1', other: '4a312c',
};

const SKIN = ['ffdbb4', 'edb98a', 'ffdbb4', 'edb98a', 'd08b5b', 'ae5d29', '614335'] as const;

/** Backgrounds for the extra photos: sky, park, sunset, sea, evening, a studio grey. */
const SCENES = ['b1e2ff', 'c6e5a5', 'ffd5a8', '65c9ff', 'd1c4e9', 'e6e6e6'] as const;

/** A small deterministic hash: the same seed always draws the same picture. */
function hash(seed: string): number {
  let h = 2166136261;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
  return h >>> 0;
}
const pick = <T>(list: readonly T[], seed: string): T => list[hash(seed) % list.length];

/** The options of a member's avatar: who they are decides the face, the seed only the details. */
export function avatarOptions(subject: AvatarSubject, seed: string) {
  const older = subject.age >= OLDER_AGE;
  const male = subject.gender === 'male';
  const bald = subject.hair_color === 'bald';
  const tops = male ? (older ? MALE_OLDER_TOPS : MALE_TOPS) : older ? FEMALE_OLDER_TOPS : FEMALE_TOPS;
  const hairColor = older && (subject.hair_color === 'grey' || subject.hair_color === 'white' || !subject.hair_color)
    ? pick(GREY_HAIR, `${seed}:grey`)
    : HAIR_HEX[subject.hair_color ?? 'brown'] ?? HAIR_HEX.brown;
  const beard = male && hash(`${seed}:beard`) % 100 < (older ? 65 : 30);
  const glasses = hash(`${seed}:glasses`) % 100 < (older ? 60 : 12);
  return {
    seed,
    top: [pick(tops, `${seed}:top`)],
    // Bald men are drawn without hair; women always have some.
    topProbability: male && bald ? 0 : 100,
    skinColor: [pick(SKIN, `${seed}:skin`)],
    hairColor: [hairColor],
    facialHair: [pick(BEARDS, `${seed}:beardStyle`)],
    facialHairColor: [hairColor],
    facialHairProbability: beard ? 100 : 0,
    accessories: [pick(GLASSES, `${seed}:glassesStyle`)],
    accessoriesProbability: glasses ? 100 : 0,
    eyebrows: [older ? pick(['defaultNatural', 'flatNatural'] as const, `${seed}:brows`) : pick(['defaultNatural', 'default', 'raisedExcitedNatural'] as const, `${seed}:brows`)],
    eyes: [pick(['default', 'happy', 'side', 'squint', 'wink'] as const, `${seed}:eyes`)],
    mouth: [pick(['smile', 'default', 'twinkle', 'serious'] as const, `${seed}:mouth`)],
    clothing: [older
      ? pick(['blazerAndShirt', 'blazerAndSweater', 'collarAndSweater', 'shirtCrewNeck'] as const, `${seed}:clothes`)
      : pick(['hoodie', 'shirtCrewNeck', 'shirtScoopNeck', 'shirtVNeck', 'collarAndSweater', 'overall'] as const, `${seed}:clothes`)],
    backgroundColor: [pick(SCENES, `${seed}:bg`)],
  };
}

/**
 * How many photos a demo member with a picture has: 1, or for about 30 % of them 2 to 6. Drawn from
 * the seed, not from the seed's random stream, so the rest of the demo data stays as it was.
 */
export function demoPhotoCount(seed: string, share: number): number {
  return hash(`${seed}:photos`) % 1000 < share * 1000 ? 2 + (hash(`${seed}:photoCount`) % 5) : 1;
}

/** The avatar SVG of a member. */
export function avatarSvg(subject: AvatarSubject, seed: string): string {
  return createAvatar(avataaars, avatarOptions(subject, seed)).toString();
}

/**
 * One more "photo" of the same member: the same person (hair, beard, glasses) in another scene,
 * with other clothes and expression.
 */
export function extraPhotoSvg(subject: AvatarSubject, seed: string, index: number): string {
  const base = avatarOptions(subject, seed);
  const variant = avatarOptions(subject, `${seed}#${index}`);
  return createAvatar(avataaars, {
    ...base,
    eyes: variant.eyes,
    mouth: variant.mouth,
    clothing: variant.clothing,
    clothesColor: [pick(['262e33', '5199e4', '25557c', 'e6e6e6', '929598', 'ff5c5c', 'a7ffc4', 'ffafb9'] as const, `${seed}#${index}:cc`)],
    backgroundColor: [SCENES[(hash(seed) + index) % SCENES.length]],
  }).toString();
}
