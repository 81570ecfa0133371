import { getT } from '../../shared/i18n';
import { LOCALE_TAGS, type Locale } from '../../shared/locales';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escapeText = (s: string) => s.replace(/[&<>"]/g, (c) => ESC[c]);

/** SPEC §8: the page shown when the error page itself failed. Self-contained, no scripts. */
export function fallbackErrorPage(locale: Locale, details: string | null): string {
  const t = getT(locale);
  return `<!doctype html><html lang="${LOCALE_TAGS[locale]}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeText(t('error.page_failed_title'))}</title><style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}a{color:#8b1a1a}</style></head><body><h1>${escapeText(t('error.page_failed_title'))}</h1><p>${escapeText(t('error.page_failed_text'))}</p>${details ? `<details><summary>${escapeText(t('error.details'))}</summary><pre>${escapeText(details)}</pre></details>` : ''}<p><a href="/">${escapeText(t('error.go_home'))}</a></p></body></html>`;
}
