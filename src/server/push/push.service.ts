import webpush from 'web-push';
import type { Logger } from 'pino';
import type { NotificationType } from '../../shared/accounts.contract';
import { getT } from '../../shared/i18n';
import { isLocale } from '../../shared/locales';
import type { SiteRegistry } from '../sites/site-registry';
import type { Db } from '../db/database';
import { badgeTotals } from '../chat/chat.repository';

/** What a push message carries to the service worker (src/sw.ts). */
export interface PushPayload { title: string; body: string; url: string; tag: string; badge_count: number }
export interface PushSubscriptionInput { endpoint: string; keys: { p256dh: string; auth: string } }

/**
 * Web push: VAPID keys are made on first start and kept in the database (every process signs with
 * the same pair); a member's subscriptions get a message per event type they have not switched off.
 */
export interface PushService {
  publicKey: string;
  subscribe(userId: number, subscription: PushSubscriptionInput, now: number): Promise<void>;
  unsubscribe(userId: number, endpoint: string): Promise<void>;
  /** Sends in the background; failures are logged, dead subscriptions dropped. */
  notify(userId: number, type: NotificationType, build: (t: ReturnType<typeof getT>) => Omit<PushPayload, 'badge_count'>): void;
  /** Resolves when every notification started so far has been handed to the push services. */
  idle(): Promise<void>;
}

async function loadVapidKeys(handle: Db): Promise<{ publicKey: string; privateKey: string }> {
  const db = handle.db;
  const generated = webpush.generateVAPIDKeys();
  // A second process starting at the same time keeps the first pair.
  await db.insertInto('app_keys').values({ name: 'vapid', value: JSON.stringify(generated) }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const row = await db.selectFrom('app_keys').select('value').where('name', '=', 'vapid').executeTakeFirstOrThrow();
  return JSON.parse(row.value);
}

export async function createPushService(handle: Db, sites: SiteRegistry, logger: Logger): Promise<PushService> {
  const keys = await loadVapidKeys(handle);
  const db = handle.db;
  const inFlight = new Set<Promise<void>>();

  async function deliver(userId: number, type: NotificationType, build: Parameters<PushService['notify']>[2]) {
    const user = await db
      .selectFrom('users')
      .leftJoin('profiles', 'profiles.user_id', 'users.id')
      .select(['users.site_id', 'users.language', 'users.push_prefs', 'users.deleted_at', 'profiles.id as profile_id'])
      .where('users.id', '=', userId)
      .executeTakeFirst();
    if (!user || user.deleted_at !== null) return;
    const prefs = JSON.parse(user.push_prefs || '{}') as Record<string, boolean>;
    if (prefs[type] === false) return;
    const subscriptions = await db.selectFrom('push_subscriptions').selectAll().where('user_id', '=', userId).execute();
    if (subscriptions.length === 0) return;
    const site = sites.byIdOrNull(user.site_id);
    const totals = user.profile_id ? await badgeTotals(db, user.profile_id) : { unread_messages: 0, new_likes: 0 };
    const payload: PushPayload = { ...build(getT(isLocale(user.language) ? user.language : 'en')), badge_count: totals.unread_messages + totals.new_likes };
    const vapidDetails = { subject: `mailto:${site?.support_email ?? 'support@kindred.example'}`, publicKey: keys.publicKey, privateKey: keys.privateKey };
    await Promise.all(subscriptions.map(async (s) => {
      try {
        await webpush.sendNotification({ endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } }, JSON.stringify(payload), { vapidDetails, TTL: 24 * 3600, timeout: 10_000 });
      } catch (err) {
        const status = (err as { statusCode?: number }).statusCode;
        // Gone or unknown: the browser dropped the subscription.
        if (status === 404 || status === 410) await db.deleteFrom('push_subscriptions').where('id', '=', s.id).execute();
        else logger.warn({ err, status }, 'push not delivered');
      }
    }));
  }

  return {
    publicKey: keys.publicKey,
    async subscribe(userId, subscription, now) {
      await db.deleteFrom('push_subscriptions').where('endpoint', '=', subscription.endpoint).execute();
      await db.insertInto('push_subscriptions').values({ user_id: userId, endpoint: subscription.endpoint, p256dh: subscription.keys.p256dh, auth: subscription.keys.auth, created_at: now }).execute();
    },
    async unsubscribe(userId, endpoint) {
      await db.deleteFrom('push_subscriptions').where('user_id', '=', userId).where('endpoint', '=', endpoint).execute();
    },
    notify(userId, type, build) {
      const job = deliver(userId, type, build).catch((err) => logger.warn({ err }, 'push failed'));
      inFlight.add(job);
      void job.finally(() => inFlight.delete(job));
    },
    async idle() {
      await Promise.all([...inFlight]);
    },
  };
}
