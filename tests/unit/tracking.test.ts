import { describe, expect, it } from 'vitest';
import { requestTracking, trackingCookie, visitTracking } from '../../src/server/tracking/tracking.service';
import { decodeTracking, encodeTracking, landerOfPath, mergeTracking } from '../../src/shared/tracking';

const q = (s: string) => new URLSearchParams(s);

describe('visit tracking', () => {
  it('reads landers from paths, with or without a locale and slug', () => {
    expect(landerOfPath('/landers/gallery')).toEqual({ lander: 'gallery', slug: 'default' });
    expect(landerOfPath('/de/landers/gallery/mature/')).toEqual({ lander: 'gallery', slug: 'mature' });
    expect(landerOfPath('/landers/nope')).toBeNull();
    expect(landerOfPath('/members/1')).toBeNull();
  });

  it('replaces the whole source on a new click and keeps it otherwise', () => {
    const first = mergeTracking({}, '/landers/video', q('network=a&sub1=x&sub2=y'));
    expect(first).toEqual({ network: 'a', sub1: 'x', sub2: 'y', lander: 'video', slug: 'default' });
    expect(mergeTracking(first, '/members', q('page=2'))).toBe(first);
    expect(mergeTracking(first, '/landers/gallery', q(''))).toEqual({ network: 'a', sub1: 'x', sub2: 'y', lander: 'gallery', slug: 'default' });
    expect(mergeTracking(first, '/members', q('network=b'))).toEqual({ network: 'b', lander: 'video', slug: 'default' });
  });

  it('drops unsafe values in URLs and cookies', () => {
    expect(mergeTracking({}, '/', q('network=<x>&sub1=' + 'a'.repeat(129)))).toEqual({});
    expect(decodeTracking('network=ok&lander=gallery&slug=../x&sub3=%00')).toEqual({ network: 'ok' });
    expect(decodeTracking(encodeTracking({ network: 'n', ref: 'r', lander: 'maplanding', slug: 'nl-2' }))).toEqual({ network: 'n', ref: 'r', lander: 'maplanding', slug: 'nl-2' });
  });

  it('sets the cookie only when the URL changes the tracking', () => {
    const url = new URL('http://x/landers/gallery?network=a');
    const set = visitTracking(url, null, true);
    expect(set.setCookie).toMatch(/^kd_track=.+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    const cookie = set.setCookie?.split(';')[0] ?? '';
    expect(visitTracking(url, cookie, true).setCookie).toBeNull();
    expect(requestTracking(new URL('http://x/members'), cookie)).toEqual({ network: 'a', lander: 'gallery', slug: 'default' });
    expect(trackingCookie({}, false)).not.toContain('Secure');
  });
});
