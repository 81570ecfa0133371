import { getT } from '../../shared/i18n';
import type { Locale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';
import { mailFooter, renderMailHtml } from './layout';

export type MailKind = 'activation' | 'reset' | 'mail_change' | 'reactivate' | 'safety_warning';

/** Subject, HTML (the shared phone-ready layout) and text of a transactional mail in the member's language. */
export function renderMail(kind: MailKind, site: Site, locale: Locale, vars: { name: string; link: string; hours?: number; days?: number }) {
  const t = getT(locale);
  const params = { site: site.name, name: vars.name, hours: vars.hours ?? 0, days: vars.days ?? 0 };
  const subject = t(`mail.${kind}_subject`, params);
  const intro = t(`mail.${kind}_text`, params);
  const button = t(`mail.${kind}_button`, params);
  const outro = t('mail.ignore', params);
  const greeting = t('mail.greeting', params);
  const footer = mailFooter(site, locale);
  const text = `${greeting}\n\n${intro}\n\n${button}: ${vars.link}\n\n${outro}\n\n-- \n${footer}\n`;
  const html = renderMailHtml(site, locale, {
    subject, preview: intro, greeting, paragraphs: [intro], button: { href: vars.link, label: button }, rawLink: vars.link, note: outro,
  });
  return { subject, html, text };
}
