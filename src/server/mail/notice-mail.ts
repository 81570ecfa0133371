import { getT } from '../../shared/i18n';
import type { Locale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';
import { esc, mailFooter, renderMailHtml } from './layout';

/** Notification mails: the SPEC §3 types a member can be mailed about. */
export type NoticeKind = 'new_conversations' | 'new_messages' | 'like' | 'unread_message_reminders' | 'weekly_updates';

export interface NoticeVars {
  /** The member mailed. */
  name: string;
  /** Who did it last (a sender or liker), or the new members' names for the weekly mail. */
  actor: string;
  count: number;
  /** Where the button leads (the site's public origin). */
  link: string;
  /** The one-click unsubscribe page of this type. */
  unsubscribeLink: string;
  settingsLink: string;
}

/** Subject, HTML (the shared phone-ready MJML layout) and plain text of a notification mail, in the member's language. */
export function renderNoticeMail(kind: NoticeKind, site: Site, locale: Locale, vars: NoticeVars) {
  const t = getT(locale);
  const params = { site: site.name, name: vars.name, actor: vars.actor, count: vars.count, type: t(`notification_type.${kind}`) };
  const subject = t(`mail.notify.${kind}_subject`, params);
  const intro = t(`mail.notify.${kind}_text`, params);
  const button = t(`mail.notify.${kind}_button`, params);
  const why = t('mail.notify.why', params);
  const stop = t('mail.notify.unsubscribe', params);
  const settings = t('mail.notify.settings', params);
  const greeting = t('mail.greeting', params);
  const footer = mailFooter(site, locale);
  const text = `${greeting}\n\n${intro}\n\n${button}: ${vars.link}\n\n-- \n${why}\n${stop}: ${vars.unsubscribeLink}\n${settings}: ${vars.settingsLink}\n${footer}\n`;
  const html = renderMailHtml(site, locale, {
    subject, preview: intro, greeting, paragraphs: [intro], button: { href: vars.link, label: button },
    smallPrint: [
      `${esc(why)}<br><a href="${esc(vars.unsubscribeLink)}" style="color:#666666">${esc(stop)}</a> · <a href="${esc(vars.settingsLink)}" style="color:#666666">${esc(settings)}</a>`,
    ],
  });
  return { subject, html, text };
}
