import type { Kysely } from 'kysely';
import { decodeTracking, type Tracking } from '../../shared/tracking';
import type { Database, LanderFunnelStep, User } from '../db/schema';
import { funnelRows, incrementFunnel } from './funnel.repository';

/** Counts one funnel step for a visit that came through a lander; visits without a lander count nowhere. */
export async function recordFunnelStep(db: Kysely<Database>, siteId: string, tracking: Tracking, step: LanderFunnelStep): Promise<void> {
  if (!tracking.lander || !tracking.slug) return;
  await incrementFunnel(db, { siteId, lander: tracking.lander, slug: tracking.slug, network: tracking.network ?? '' }, step);
}

/** Tracking stored with an account (JSON in users.tracking), validated again on the way out. */
export function trackingOfUser(user: Pick<User, 'tracking'>): Tracking {
  if (!user.tracking) return {};
  try {
    const raw = JSON.parse(user.tracking) as Record<string, unknown>;
    return decodeTracking(new URLSearchParams(Object.entries(raw).filter(([, v]) => typeof v === 'string') as [string, string][]).toString());
  } catch {
    return {};
  }
}

/**
 * Counts a step for the lander an account came from (activated; first purchase — payments call this once when
 * a member's first bundle is paid, inside the same transaction).
 */
export async function recordAccountFunnelStep(db: Kysely<Database>, siteId: string, user: Pick<User, 'tracking'>, step: LanderFunnelStep): Promise<void> {
  await recordFunnelStep(db, siteId, trackingOfUser(user), step);
}

/** The funnel of one site, as the operator console shows it. */
export async function siteFunnel(db: Kysely<Database>, siteId: string) {
  return (await funnelRows(db, siteId)).map((r) => ({
    lander: r.lander, slug: r.slug, network: r.network,
    views: Number(r.views), signups_started: Number(r.signups_started), accounts_created: Number(r.accounts_created),
    activated: Number(r.activated), first_purchases: Number(r.first_purchases), bounces: Number(r.bounces),
  }));
}
