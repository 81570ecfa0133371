import { describe, expect, it } from 'vitest';
import { fallbackErrorPage } from '../../src/server/errors/fallback-page';
import { CATALOGS } from '../../src/shared/i18n';

describe('fallback error page', () => {
  it('shows the spec texts in the visitor language, with details only when given', () => {
    const html = fallbackErrorPage('en', 'Error: <boom>');
    expect(html).toContain('An error occurred while showing the error page');
    expect(html).toContain('Unfortunately an error occurred and while showing the error page another error occurred');
    expect(html).toContain('Go back to home');
    expect(html).toContain('&lt;boom&gt;');
    expect(fallbackErrorPage('en', null)).not.toContain('<details>');
    expect(fallbackErrorPage('de', null)).toContain(CATALOGS.de['error.page_failed_title']);
    expect(fallbackErrorPage('de', null)).toContain('<html lang="de-DE"');
  });
});
