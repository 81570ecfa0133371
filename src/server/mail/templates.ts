import { getT } from '../../shared/i18n';
import { LOCALE_TAGS, type Locale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ESC[c]);

export type MailKind = 'activation' | 'reset' | 'mail_change' | 'reactivate' | 'safety_warning';

/** Subject, HTML and text of a transactional mail in the member's language. */
export function renderMail(kind: MailKind, site: Site, locale: Locale, vars: { name: string; link: string; hours?: number; days?: number }) {
  const t = getT(locale);
  const params = { site: site.name, name: vars.name, hours: vars.hours ?? 0, days: vars.days ?? 0 };
  const subject = t(`mail.${kind}_subject`, params);
  const intro = t(`mail.${kind}_text`, params);
  const button = t(`mail.${kind}_button`, params);
  const outro = t('mail.ignore', params);
  const footer = t('mail.footer', { site: site.name, company: site.company.name, address: `${site.company.address}, ${site.company.city}` });
  const text = `${t('mail.greeting', params)}\n\n${intro}\n\n${button}: ${vars.link}\n\n${outro}\n\n-- \n${footer}\n`;
  const { primary, secondary } = site.theme;
  const html = `<!doctype html><html lang="${LOCALE_TAGS[locale]}"><head><meta charset="utf-8"><title>${esc(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f6f2ef;font-family:Arial,Helvetica,sans-serif;color:#222">
<table role="presentation" width="100%" style="max-width:560px;margin:0 auto;background:#fff;border-radius:12px;overflow:hidden">
<tr><td style="background:${secondary};color:#fff;padding:20px 24px;font-size:22px;font-weight:bold">${esc(site.name)}</td></tr>
<tr><td style="padding:24px;font-size:16px;line-height:1.5">
<p>${esc(t('mail.greeting', params))}</p><p>${esc(intro)}</p>
<p style="text-align:center;margin:28px 0"><a href="${esc(vars.link)}" style="background:${primary};color:#1b1b1b;padding:14px 28px;border-radius:999px;text-decoration:none;font-weight:bold;display:inline-block">${esc(button)}</a></p>
<p style="font-size:13px;color:#555;word-break:break-all">${esc(vars.link)}</p>
<p style="font-size:14px;color:#555">${esc(outro)}</p>
</td></tr>
<tr><td style="padding:16px 24px;font-size:12px;color:#777;border-top:1px solid #eee">${esc(footer)}</td></tr>
</table></body></html>`;
  return { subject, html, text };
}
