import { type Expression, expressionBuilder } from 'kysely';
import type { Database } from '../db/schema';

const eb = expressionBuilder<Database, never>();

/**
 * A profile's face in every list (search cards, chats, the console's personas, the operator's inbox): the
 * thumbnail of its main photo once approved, never one under inspection or rejected; null when there is none.
 * Selected as `thumb` unless named: `.select((eb) => mainThumb(eb.ref('p.id')))`.
 */
export function mainThumb<A extends string = 'thumb'>(profileId: Expression<number>, as: A = 'thumb' as A) {
  return eb.selectFrom('photos').select('photos.thumb_filename')
    .where('photos.profile_id', '=', profileId).where('photos.is_main', '=', 1).where('photos.status', '=', 'active')
    .limit(1).as(as);
}
