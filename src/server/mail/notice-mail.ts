import mjml2html from 'mjml';
import { getT } from '../../shared/i18n';
import { LOCALE_TAGS, type Locale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';

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

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESC[c]);
const COLOUR = /^#[0-9a-fA-F]{3,8}$/;

/**
 * Subject, HTML (MJML: tables that hold up in Outlook, Gmail and Apple Mail; light and dark
 * colour schemes; every text is real text, never only an image) and plain text of a notification
 * mail, in the member's language with the site's name and colours.
 */
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
  const footer = t('mail.footer', { site: site.name, company: site.company.name, address: `${site.company.address}, ${site.company.city}` });
  const primary = COLOUR.test(site.theme.primary) ? site.theme.primary : '#ff7f50';
  const secondary = COLOUR.test(site.theme.secondary) ? site.theme.secondary : '#8b1a1a';
  const text = `${greeting}\n\n${intro}\n\n${button}: ${vars.link}\n\n-- \n${why}\n${stop}: ${vars.unsubscribeLink}\n${settings}: ${vars.settingsLink}\n${footer}\n`;
  const source = `<mjml lang="${LOCALE_TAGS[locale]}">
  <mj-head>
    <mj-title>${esc(subject)}</mj-title>
    <mj-preview>${esc(intro)}</mj-preview>
    <mj-raw><meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark"></mj-raw>
    <mj-attributes><mj-all font-family="Arial, Helvetica, sans-serif"></mj-all><mj-text font-size="16px" line-height="1.5" color="#222222"></mj-text></mj-attributes>
    <mj-style>
      @media (prefers-color-scheme: dark) {
        body, .mail-body { background: #121212 !important; }
        .card, .card table, .card td { background: #1e1e1e !important; }
        .card div { color: #eeeeee !important; }
        .muted div, .muted a { color: #bbbbbb !important; }
      }
    </mj-style>
  </mj-head>
  <mj-body background-color="#f6f2ef" css-class="mail-body">
    <mj-section background-color="${secondary}" padding="16px 24px">
      <mj-column><mj-text font-size="22px" font-weight="bold" color="#ffffff">${esc(site.name)}</mj-text></mj-column>
    </mj-section>
    <mj-section background-color="#ffffff" css-class="card" padding="16px 24px">
      <mj-column>
        <mj-text>${esc(greeting)}</mj-text>
        <mj-text>${esc(intro)}</mj-text>
        <mj-button href="${esc(vars.link)}" background-color="${primary}" color="#1b1b1b" font-weight="bold" border-radius="999px" inner-padding="14px 28px">${esc(button)}</mj-button>
      </mj-column>
    </mj-section>
    <mj-section padding="8px 24px" css-class="muted">
      <mj-column>
        <mj-text font-size="12px" color="#666666">${esc(why)}<br><a href="${esc(vars.unsubscribeLink)}" style="color:#666666">${esc(stop)}</a> · <a href="${esc(vars.settingsLink)}" style="color:#666666">${esc(settings)}</a></mj-text>
        <mj-text font-size="12px" color="#666666">${esc(footer)}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
  const { html, errors } = mjml2html(source, { validationLevel: 'soft', keepComments: false });
  if (errors.length) throw new Error(`notification mail template: ${errors.map((e) => e.formattedMessage).join('; ')}`);
  return { subject, html, text };
}
