import { describe, expect, it } from 'vitest';
import { describeUserAgent } from '../../src/shared/user-agent';

describe('describeUserAgent', () => {
  it('names device, browser and system of common user agents', () => {
    expect(describeUserAgent('Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1'))
      .toEqual({ device: 'phone', browser: 'Safari 17', os: 'iOS 17' });
    expect(describeUserAgent('Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36'))
      .toEqual({ device: 'phone', browser: 'Chrome 124', os: 'Android 14' });
    expect(describeUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51'))
      .toEqual({ device: 'desktop', browser: 'Edge 124', os: 'Windows' });
    expect(describeUserAgent('Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0'))
      .toEqual({ device: 'desktop', browser: 'Firefox 125', os: 'macOS' });
    expect(describeUserAgent('Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Safari/537.36'))
      .toEqual({ device: 'tablet', browser: 'Samsung Internet 24', os: 'Android 13' });
    expect(describeUserAgent(null)).toEqual({ device: 'desktop', browser: null, os: null });
    expect(describeUserAgent('curl/8.5.0').device).toBe('bot');
  });
});
