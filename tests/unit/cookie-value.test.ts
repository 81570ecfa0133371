import { describe, expect, it } from 'vitest';
import { hashToken } from '../../src/server/accounts/tokens';
import { cookieValue, parseCookies } from '../../src/server/context/request-context';

describe('cookieValue', () => {
  it('answers what parseCookies answers for one cookie, whatever the header', () => {
    const headers = [
      undefined, '', 'kd_session=abc', 'lang=en; kd_session=abc', ' kd_session = a%20b ; lang=en', 'kd_session="quoted"',
      'kd_session=first; kd_session=second', 'x=1;kd_session=%E0%A4%A', '=kd_session; kd_session=ok', 'kd_sessionx=no; kd_session=yes',
      'lang=en;;kd_session=', 'kd_session', 'a=b; kd_session=c=d', 'lang=nl',
    ];
    for (const header of headers) expect(cookieValue(header, 'kd_session'), String(header)).toBe(parseCookies(header).kd_session);
  });
});

describe('hashToken', () => {
  it('answers the SHA-256 of the token, also when remembered', async () => {
    const { createHash } = await import('node:crypto');
    for (let round = 0; round < 2; round++) {
      expect(hashToken('token-a')).toBe(createHash('sha256').update('token-a').digest('hex'));
      expect(hashToken('token-b')).toBe(createHash('sha256').update('token-b').digest('hex'));
    }
  });
});
