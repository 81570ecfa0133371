import * as v from 'valibot';

/**
 * Every row id (profiles, members, messages, payments, photos…) is a positive 32-bit integer: the
 * PostgreSQL `integer`/`serial` columns hold no more. A larger number is bad input (400), never a
 * query that fails with 500.
 */
export const MAX_ID = 2 ** 31 - 1;

/** An id in a JSON body. */
export const IdSchema = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_ID));

/** An id written as decimal digits (query string, path segment). */
export const IdTextSchema = v.pipe(v.string(), v.regex(/^\d{1,10}$/), v.transform(Number), IdSchema);

/** The id in a path segment or query value, or null when it is not one. */
export function parseId(raw: string | null | undefined): number | null {
  const parsed = v.safeParse(IdTextSchema, raw ?? '');
  return parsed.success ? parsed.output : null;
}
