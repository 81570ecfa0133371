import nodemailer from 'nodemailer';
import type { Db } from '../db/database';
import type { Clock } from '../util/clock';

export interface OutgoingMail {
  siteId: string;
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  /** Extra headers (List-Unsubscribe …); SMTP only, the development mailbox keeps the mail itself. */
  headers?: Record<string, string>;
}

/** Sends mail: over SMTP when configured, otherwise into the development mailbox table. */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

export function createMailer(smtpUrl: string | null, db: Db, clock: Clock): Mailer {
  if (smtpUrl) {
    // Local relays without TLS (like the test server) must not be forced into STARTTLS.
    const local = smtpUrl.startsWith('smtp://127.0.0.1') || smtpUrl.startsWith('smtp://localhost');
    const transport = nodemailer.createTransport(local ? `${smtpUrl}${smtpUrl.includes('?') ? '&' : '?'}ignoreTLS=true` : smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, html: mail.html, text: mail.text, headers: mail.headers });
      },
    };
  }
  return {
    async send(mail) {
      await db.db
        .insertInto('mails')
        .values({ site_id: mail.siteId, to_address: mail.to, subject: mail.subject, html: mail.html, text: mail.text, created_at: clock.now() })
        .execute();
    },
  };
}
