import { avataaars } from '@dicebear/collection';
import { createAvatar } from '@dicebear/core';

/**
 * Generated pictures for the demo population (never real people). The avataaars style is drawn
 * to fit the profile: hairstyles by gender (no long hair or buns on men); from about 40 the age
 * shows and grows (ageCues): greying hair, reading glasses, beards, calmer clothes and lines in
 * the face, the same for every photo of one person.
 */
export interface AvatarSubject {
  gender: 'male' | 'female';
  age: number;
  hair_color: string | null;
}


/** Age from which a demo member's hair is grey or white more often than not (the seed's hair colours). */
export const OLDER_AGE = 50;
/** Age from which the face shows it: first grey, lines and glasses, growing with every year after. */
export const AGE_CUES_FROM = 40;

/** How much of a member's age shows at `age`. */
export interface AgeCues {
  /** Share of grey in the hair, 0 (none) to 1 (all grey). */
  grey: number;
  /** Chance in % of reading glasses. */
  glasses: number;
  /** Lines in the face: 0 none, 1 smile lines, 2 and crow's feet, 3 and forehead lines. */
  lines: 0 | 1 | 2 | 3;
  /** Calmer hairstyles and clothes. */
  mature: boolean;
}

/** The age cues of `age`, growing from AGE_CUES_FROM on; `seed` lets one person grey a little earlier or later. */
export function ageCues(age: number, seed = ''): AgeCues {
  const years = age - AGE_CUES_FROM;
  if (years < 0) return { grey: 0, glasses: 12, lines: 0, mature: false };
  // Some people grey early, some late: ±4 years, fixed per person.
  const personal = (hash(`${seed}:greying`) % 9) - 4;
  const grey = Math.min(1, Math.max(0.15, (years + 4 - personal) / 24));
  const lines = years >= 20 ? 3 : years >= 10 ? 2 : 1;
  return { grey: Math.round(grey * 100) / 100, glasses: Math.min(70, 30 + years * 2), lines, mature: true };
}

/** `hex` mixed with grey by `share` (0..1). */
export function greyed(hex: string, share: number, greyHex: string): string {
  const mix = (i: number) => Math.round(Number.parseInt(hex.slice(i, i + 2), 16) * (1 - share) + Number.parseInt(greyHex.slice(i, i + 2), 16) * share);
  return [0, 2, 4].map((i) => mix(i).toString(16).padStart(2, '0')).join('');
}

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

/** The drawn hair colour: the profile's, greying with age; grey or white hair (or none set, when older) is all grey. */
function hairHex(subject: AvatarSubject, seed: string, cues: AgeCues): string {
  const greyHex = pick(GREY_HAIR, `${seed}:grey`);
  if (subject.hair_color === 'grey' || subject.hair_color === 'white') return subject.hair_color === 'white' ? GREY_HAIR[0] : greyHex;
  if (!subject.hair_color && subject.age >= OLDER_AGE) return greyHex;
  return cues.grey > 0 ? greyed(HAIR_HEX[subject.hair_color ?? 'brown'] ?? HAIR_HEX.brown, cues.grey, greyHex) : HAIR_HEX[subject.hair_color ?? 'brown'] ?? HAIR_HEX.brown;
}

/** The options of a member's avatar: who they are decides the face, the seed only the details. */
export function avatarOptions(subject: AvatarSubject, seed: string) {
  const cues = ageCues(subject.age, seed);
  const older = cues.mature;
  const male = subject.gender === 'male';
  const bald = subject.hair_color === 'bald';
  const tops = male ? (older ? MALE_OLDER_TOPS : MALE_TOPS) : older ? FEMALE_OLDER_TOPS : FEMALE_TOPS;
  const hairColor = hairHex(subject, seed, cues);
  const beard = male && hash(`${seed}:beard`) % 100 < (older ? 55 + Math.round(cues.grey * 15) : 30);
  const glasses = hash(`${seed}:glasses`) % 100 < cues.glasses;
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

/**
 * Lines the style cannot draw, laid over its face (avataaars puts the face at the same place in every
 * picture): smile lines, then crow's feet, then forehead lines. Faint, in the skin's own darker tone.
 */
export function faceLines(lines: AgeCues['lines']): string {
  if (lines === 0) return '';
  const paths = ['M121 139q-7 9-4 20', 'M159 139q7 9 4 20'];
  if (lines >= 2) paths.push('M96 104l-7-3', 'M96 110l-8 0', 'M96 116l-7 3', 'M184 104l7-3', 'M184 110l8 0', 'M184 116l7 3');
  if (lines >= 3) paths.push('M116 81q24-6 48 0', 'M120 74q20-5 40 0', 'M110 124q6 3 12 0', 'M158 124q6 3 12 0');
  return `<g data-age-lines="${lines}" fill="none" stroke="#000" stroke-opacity="${0.12 + lines * 0.03}" stroke-width="2" stroke-linecap="round"><path d="${paths.join(' ')}"/></g>`;
}

/** Adds the face's age lines to a rendered avataaars picture. */
function withFaceLines(svg: string, subject: AvatarSubject, seed: string): string {
  const lines = faceLines(ageCues(subject.age, seed).lines);
  return lines ? svg.replace(/<\/svg>$/, `${lines}</svg>`) : svg;
}

/** The avatar SVG of a member. */
export function avatarSvg(subject: AvatarSubject, seed: string): string {
  return withFaceLines(createAvatar(avataaars, avatarOptions(subject, seed)).toString(), subject, seed);
}

/**
 * One more "photo" of the same member: the same person (hair, beard, glasses) in another scene,
 * with other clothes and expression.
 */
export function extraPhotoSvg(subject: AvatarSubject, seed: string, index: number): string {
  const base = avatarOptions(subject, seed);
  const variant = avatarOptions(subject, `${seed}#${index}`);
  return withFaceLines(createAvatar(avataaars, {
    ...base,
    eyes: variant.eyes,
    mouth: variant.mouth,
    clothing: variant.clothing,
    clothesColor: [pick(['262e33', '5199e4', '25557c', 'e6e6e6', '929598', 'ff5c5c', 'a7ffc4', 'ffafb9'] as const, `${seed}#${index}:cc`)],
    backgroundColor: [SCENES[(hash(seed) + index) % SCENES.length]],
  }).toString(), subject, seed);
}
