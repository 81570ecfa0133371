import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderNoticeMail } from '../../src/server/mail/notice-mail';
import { type MailKind, renderMail } from '../../src/server/mail/templates';
import { loadSites } from '../../src/server/sites/site-registry';
import { LOCALES } from '../../src/shared/locales';

const sites = loadSites();
const KINDS: MailKind[] = ['activation', 'reset', 'mail_change', 'reactivate'];
const link = 'https://kindred.example/api/activate.php?token=aVeryLongTokenThatMustBreakOnAPhoneScreen0123456789abcdefghijklmnop';

/** What makes a mail read on a phone: the viewport, a fluid single column, the member's language, nothing wider than the screen. */
function expectPhoneLayout(html: string, lang: string) {
  expect(html).toContain('name="viewport" content="width=device-width, initial-scale=1"');
  expect(html).toMatch(/@media only screen and \(min-width:480px\)/);
  expect(html).toContain(`lang="${lang}"`);
  expect(html).not.toMatch(/width="(6\d\d|[7-9]\d\d)"[^>]*style="(?![^"]*max-width)/);
}

describe('mails have a phone layout (one MJML layout for every mail)', () => {
  it.each(KINDS)('the %s mail', (kind) => {
    for (const site of sites) {
      const mail = renderMail(kind, site, 'nl', { name: 'Sanne', link, hours: 48, days: 14 });
      expectPhoneLayout(mail.html, 'nl-NL');
      expect(mail.html).toContain(link);
      expect(mail.html).toContain('word-break: break-all');
    }
  });
  it('the notification mails, with their unsubscribe link', () => {
    const mail = renderNoticeMail('new_messages', sites[0], 'nl', { name: 'Sanne', actor: 'Piet', count: 2, link, unsubscribeLink: 'https://kindred.example/unsubscribe?t=1.x.y', settingsLink: 'https://kindred.example/settings' });
    expectPhoneLayout(mail.html, 'nl-NL');
    expect(mail.html).toContain('https://kindred.example/unsubscribe?t=1.x.y');
  });
  it('renders in every locale, with no MJML left in the HTML', () => {
    for (const locale of LOCALES) expect(renderMail('activation', sites[0], locale, { name: 'A', link }).html).not.toMatch(/<\/?mj-/);
  });
  // MAIL_PREVIEW_DIR=… keeps the rendered activation mail to look at it in a phone-sized browser.
  if (process.env.MAIL_PREVIEW_DIR) {
    it('writes a preview', () => {
      mkdirSync(process.env.MAIL_PREVIEW_DIR as string, { recursive: true });
      writeFileSync(`${process.env.MAIL_PREVIEW_DIR}/activation.html`, renderMail('activation', sites[0], 'nl', { name: 'Sanne', link, hours: 48 }).html);
    });
  }
});
