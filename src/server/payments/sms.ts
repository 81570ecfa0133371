import type { Clock } from '../util/clock';
import type { Db } from '../db/database';

/** Sends the direct-debit SMS code. */
export interface SmsSender {
  send(input: { siteId: string; to: string; text: string; subject: string }): Promise<void>;
}

/**
 * Default: the SMS lands in the development mailbox (table mails, shown at /dev/mailbox), never in
 * production. With SMS_API_URL the text is posted as JSON {from, to, text} with a bearer key — the
 * shape most SMS gateways accept (or put a small adapter behind that URL).
 */
export function createSmsSender(options: { production: boolean; gateway: { url: string; key: string | null; from: string } | null; db: Db; clock: Clock }): SmsSender | null {
  const { gateway } = options;
  if (gateway) {
    return {
      async send({ to, text }) {
        const res = await fetch(gateway.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(gateway.key ? { authorization: `Bearer ${gateway.key}` } : {}) },
          body: JSON.stringify({ from: gateway.from, to, text }),
          signal: AbortSignal.timeout(10_000),
        });
        if (!res.ok) throw new Error(`sms gateway answered ${res.status}`);
      },
    };
  }
  if (options.production) return null;
  return {
    async send({ siteId, to, text, subject }) {
      await options.db.db
        .insertInto('mails')
        .values({ site_id: siteId, to_address: `sms:${to}`, subject, html: `<p>${text.replace(/[<>&]/g, '')}</p>`, text, created_at: options.clock.now() })
        .execute();
    },
  };
}
