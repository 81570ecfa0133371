/** The fixed interest list (SPEC §3); labels live in the catalogs under interest.<key>. */
export const INTERESTS = [
  'adventure', 'analsex', 'animals', 'art', 'astrology', 'bbq', 'beach', 'beer', 'biking', 'bondage',
  'coffee', 'cooking', 'dancing', 'exchangingpictures', 'fashion', 'foodie', 'gardening', 'gym', 'hiking',
  'hugging', 'kissing', 'lingerie', 'massages', 'masturbating', 'movies', 'music', 'onenightstand', 'oralsex',
  'outdoors', 'party', 'photography', 'politics', 'publicsex', 'reading', 'relationship', 'sadomasochism',
  'safesex', 'sex', 'sextoys', 'shopping', 'sports', 'sushi', 'tattoos', 'tea', 'theater', 'threesome',
  'travelling', 'vegetarian', 'videogames', 'wine',
] as const;
export type Interest = (typeof INTERESTS)[number];

export const GENDERS = ['male', 'female'] as const;
export const SEXUALITIES = ['hetero', 'gay', 'lesbian', 'bi'] as const;
/** Whom a member looks for by default, from their own gender and orientation (bi, or unknown: anyone). */
export function lookingFor(gender: string | null | undefined, sexuality: string | null | undefined): (typeof GENDERS)[number] | undefined {
  if (gender !== 'male' && gender !== 'female') return undefined;
  if (sexuality === 'hetero') return gender === 'male' ? 'female' : 'male';
  if (sexuality === 'gay' || sexuality === 'lesbian') return gender;
  return undefined;
}
export const HAIR_COLORS = ['black', 'brown', 'blond', 'red', 'grey', 'white', 'bald', 'other'] as const;
export const EYE_COLORS = ['brown', 'blue', 'green', 'grey', 'hazel', 'other'] as const;
export const BODY_TYPES = ['slim', 'athletic', 'average', 'curvy', 'muscular', 'fullfigured'] as const;
export const RELATIONSHIP_STATUSES = ['single', 'relationship', 'married', 'divorced', 'widowed', 'open'] as const;
export const TATTOO_OPTIONS = ['none', 'some', 'many'] as const;
/** Free-text profile notes a site may show (`visible_profile_notes`): the member's own words. */
export const PROFILE_NOTES = ['about'] as const;
export type ProfileNote = (typeof PROFILE_NOTES)[number];
/** Longest profile note, in characters. */
export const PROFILE_NOTE_MAX = 1000;

/** Countries that have a region list (SPEC §9). */
export const COUNTRIES_WITH_REGIONS = [
  'NL', 'BE', 'GB', 'IE', 'DE', 'AT', 'IT', 'FR', 'CH', 'ES', 'US', 'CA', 'AU', 'NZ', 'PL', 'DK', 'FI', 'NO', 'SE',
] as const;

/** A note as stored: control characters and bidi overrides dropped (line breaks kept, at most one blank line), empty → null. */
export function cleanNote(text: string | null): string | null {
  if (text === null) return null;
  const clean = text.replace(/\r\n?/g, '\n').replace(/[^\P{Cc}\n]|[\u202a-\u202e\u2066-\u2069]/gu, '').replace(/\n{3,}/g, '\n\n').trim();
  return clean === '' ? null : clean;
}
