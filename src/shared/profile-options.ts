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
export const HAIR_COLORS = ['black', 'brown', 'blond', 'red', 'grey', 'white', 'bald', 'other'] as const;
export const EYE_COLORS = ['brown', 'blue', 'green', 'grey', 'hazel', 'other'] as const;
export const BODY_TYPES = ['slim', 'athletic', 'average', 'curvy', 'muscular', 'fullfigured'] as const;
export const RELATIONSHIP_STATUSES = ['single', 'relationship', 'married', 'divorced', 'widowed', 'open'] as const;
export const TATTOO_OPTIONS = ['none', 'some', 'many'] as const;

/** Countries that have a region list (SPEC §9). */
export const COUNTRIES_WITH_REGIONS = [
  'NL', 'BE', 'GB', 'IE', 'DE', 'AT', 'IT', 'FR', 'CH', 'ES', 'US', 'CA', 'AU', 'NZ', 'PL', 'DK', 'FI', 'NO', 'SE',
] as const;
