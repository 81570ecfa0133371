import { type Kysely, sql } from 'kysely';
import type { Database, LanderFunnelStep } from '../db/schema';

export interface FunnelKey {
  siteId: string;
  lander: string;
  slug: string;
  network: string;
}

/** Adds one to a funnel counter, creating the row on first use (one statement, safe under concurrency). */
export async function incrementFunnel(db: Kysely<Database>, key: FunnelKey, step: LanderFunnelStep): Promise<void> {
  await db
    .insertInto('lander_funnel')
    .values({ site_id: key.siteId, lander: key.lander, slug: key.slug, network: key.network, [step]: 1 })
    .onConflict((oc) => oc.columns(['site_id', 'lander', 'slug', 'network']).doUpdateSet({ [step]: sql`lander_funnel.${sql.ref(step)} + 1` }))
    .execute();
}

/** Every funnel row of a site, busiest first, for the operator console. */
export function funnelRows(db: Kysely<Database>, siteId: string) {
  return db.selectFrom('lander_funnel').selectAll().where('site_id', '=', siteId).orderBy('views', 'desc').orderBy('lander').orderBy('slug').orderBy('network').execute();
}
