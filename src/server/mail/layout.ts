import mjml2html from 'mjml';
import { getT } from '../../shared/i18n';
import { LOCALE_TAGS, type Locale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Escapes text for HTML (and MJML) markup. */
export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESC[c]);
const COLOUR = /^#[0-9a-fA-F]{3,8}$/;

/** The company line every mail ends with. */
export function mailFooter(site: Site, locale: Locale): string {
  return getT(locale)('mail.footer', { site: site.name, company: site.company.name, address: `${site.company.address}, ${site.company.city}` });
}

/** What a mail says, in the member's language; the layout around it is the same for every mail. */
export interface MailContent {
  subject: string;
  /** The inbox preview line. */
  preview: string;
  greeting: string;
  paragraphs: string[];
  button: { href: string; label: string };
  /** Shown as plain text under the button, for clients that do not follow it (a long link breaks anywhere). */
  rawLink?: string;
  /** A smaller line in the card after the button ("ignore this mail if …"). */
  note?: string;
  /** Small print under the card, as HTML made with `esc` (why the mail came, unsubscribe links); the company line follows. */
  smallPrint?: string[];
}

/**
 * One HTML layout for every mail, written in MJML: tables that hold up in Outlook, Gmail and Apple Mail, a
 * single column that fills a phone's width (viewport meta, fluid width up to 600 px), light and dark colour
 * schemes, every text real text, the site's name and colours.
 */
export function renderMailHtml(site: Site, locale: Locale, content: MailContent): string {
  const primary = COLOUR.test(site.theme.primary) ? site.theme.primary : '#ff7f50';
  const secondary = COLOUR.test(site.theme.secondary) ? site.theme.secondary : '#8b1a1a';
  const source = `<mjml lang="${LOCALE_TAGS[locale]}">
  <mj-head>
    <mj-title>${esc(content.subject)}</mj-title>
    <mj-preview>${esc(content.preview)}</mj-preview>
    <mj-raw><meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark"></mj-raw>
    <mj-attributes><mj-all font-family="Arial, Helvetica, sans-serif"></mj-all><mj-text font-size="16px" line-height="1.5" color="#222222"></mj-text></mj-attributes>
    <mj-style>
      @media (prefers-color-scheme: dark) {
        body, .mail-body { background: #121212 !important; }
        .card, .card table, .card td { background: #1e1e1e !important; }
        .card div { color: #eeeeee !important; }
        .muted div, .muted a { color: #bbbbbb !important; }
      }
      .raw-link div { word-break: break-all; overflow-wrap: anywhere; }
    </mj-style>
  </mj-head>
  <mj-body background-color="#f6f2ef" css-class="mail-body" width="600px">
    <mj-section background-color="${secondary}" padding="16px 0">
      <mj-column><mj-text font-size="22px" font-weight="bold" color="#ffffff">${esc(site.name)}</mj-text></mj-column>
    </mj-section>
    <mj-section background-color="#ffffff" css-class="card" padding="16px 0">
      <mj-column>
        <mj-text>${esc(content.greeting)}</mj-text>
        ${content.paragraphs.map((p) => `<mj-text>${esc(p)}</mj-text>`).join('\n        ')}
        <mj-button href="${esc(content.button.href)}" background-color="${primary}" color="#1b1b1b" font-weight="bold" border-radius="999px" inner-padding="14px 28px">${esc(content.button.label)}</mj-button>
        ${content.rawLink ? `<mj-text font-size="13px" color="#555555" css-class="raw-link">${esc(content.rawLink)}</mj-text>` : ''}
        ${content.note ? `<mj-text font-size="14px" color="#555555">${esc(content.note)}</mj-text>` : ''}
      </mj-column>
    </mj-section>
    <mj-section padding="8px 0" css-class="muted">
      <mj-column>
        ${[...(content.smallPrint ?? []), esc(mailFooter(site, locale))].map((html) => `<mj-text font-size="12px" color="#666666">${html}</mj-text>`).join('\n        ')}
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
  const { html, errors } = mjml2html(source, { validationLevel: 'soft', keepComments: false });
  if (errors.length) throw new Error(`mail template: ${errors.map((e) => e.formattedMessage).join('; ')}`);
  return html;
}
