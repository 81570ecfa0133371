import { describe, expect, it } from 'vitest';
import { isOwnNavigation, isSameOrigin } from '../../src/server/api/security';
import { createRequestContext, requestEndpoint } from '../../src/server/context/request-context';
import { loadSites, SiteRegistry } from '../../src/server/sites/site-registry';

const spoofed = { host: 'localhost:4321', 'x-forwarded-for': '203.0.113.9, 198.51.100.7', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

describe('requestEndpoint: the one place that reads client address, host and scheme', () => {
  it('ignores every forwarded header without TRUST_PROXY', () => {
    expect(requestEndpoint({ headers: spoofed, remoteAddress: '::ffff:10.0.0.5' }, { trustProxy: 0 })).toEqual({ ip: '10.0.0.5', host: 'localhost:4321', scheme: 'http' });
    expect(requestEndpoint({ headers: { host: 'kindred.example' }, remoteAddress: '10.0.0.5', encrypted: true }, { trustProxy: 0 }).scheme).toBe('https');
  });

  it('with one trusted proxy takes the address that proxy saw (the last hop), not what the client wrote', () => {
    expect(requestEndpoint({ headers: spoofed, remoteAddress: '10.0.0.1' }, { trustProxy: 1 })).toEqual({ ip: '198.51.100.7', host: 'evil.example', scheme: 'https' });
    expect(requestEndpoint({ headers: spoofed, remoteAddress: '10.0.0.1' }, { trustProxy: 2 }).ip).toBe('203.0.113.9');
    expect(requestEndpoint({ headers: { host: 'a' }, remoteAddress: '10.0.0.1' }, { trustProxy: 1 }).ip).toBe('10.0.0.1');
  });

  it('feeds the request context the pages and the API use', () => {
    const sites = new SiteRegistry(loadSites());
    const ctx = createRequestContext(sites, { headers: spoofed, remoteAddress: '10.0.0.5' }, { trustProxy: 0, countryHeader: null });
    expect(ctx.ip).toBe('10.0.0.5');
    expect(ctx.requestOrigin).toBe('http://localhost:4321');
    expect(ctx.origin).toBe('http://localhost:4321');
    expect(ctx.secure).toBe(false);
  });
});

describe('same-origin checks', () => {
  const ctx = { requestOrigin: 'http://localhost:4321', origin: 'http://localhost:4321' };
  const headers = (h: Record<string, string>) => new Headers(h);
  it('compares the Origin header, scheme included, with the request origin', () => {
    expect(isSameOrigin(headers({ origin: 'http://localhost:4321' }), ctx)).toBe(true);
    expect(isSameOrigin(headers({ origin: 'https://localhost:4321' }), ctx)).toBe(false);
    expect(isSameOrigin(headers({ origin: 'http://evil.example', 'x-forwarded-host': 'evil.example' }), ctx)).toBe(false);
    expect(isSameOrigin(headers({ origin: 'null' }), ctx)).toBe(false);
    expect(isSameOrigin(headers({ 'sec-fetch-site': 'same-site', origin: 'http://localhost:4321' }), ctx)).toBe(false);
  });

  it('counts a navigation as the site\'s own only with proof', () => {
    expect(isOwnNavigation(headers({ 'sec-fetch-site': 'same-origin' }), ctx)).toBe(true);
    expect(isOwnNavigation(headers({ 'sec-fetch-site': 'cross-site' }), ctx)).toBe(false);
    expect(isOwnNavigation(headers({ referer: 'http://localhost:4321/members' }), ctx)).toBe(true);
    expect(isOwnNavigation(headers({ referer: 'http://localhost.evil.example/' }), ctx)).toBe(false);
    expect(isOwnNavigation(headers({}), ctx)).toBe(false);
  });
});
