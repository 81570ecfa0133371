/**
 * A session's user agent as staff read it: device kind, browser and system. A dozen patterns cover the
 * browsers members use; a parser dependency (ua-parser-js is AGPL from v2, bowser ~25 KB) is not worth
 * it for one line on the console's member page. Unknown parts stay null (the page shows the raw string
 * as a tooltip).
 */
export type DeviceKind = 'phone' | 'tablet' | 'desktop' | 'bot';
export interface UserAgentInfo { device: DeviceKind; browser: string | null; os: string | null }

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\bOPR\/(\d+)|\bOpera\/(\d+)/, 'Opera'],
  [/\bSamsungBrowser\/(\d+)/, 'Samsung Internet'],
  [/\bFxiOS\/(\d+)|\bFirefox\/(\d+)/, 'Firefox'],
  [/\bCriOS\/(\d+)|\bChrome\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/\biPhone\b(?:.*? OS (\d+))?/, 'iOS'],
  [/\biPad\b(?:.*? OS (\d+))?/, 'iPadOS'],
  [/\bAndroid (\d+)/, 'Android'],
  [/\bWindows NT 10/, 'Windows'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b/, 'Linux'],
];

export function describeUserAgent(ua: string | null | undefined): UserAgentInfo {
  const text = ua ?? '';
  const device: DeviceKind = /bot|crawler|spider|curl|wget|HeadlessChrome/i.test(text) ? 'bot'
    : /iPad|Tablet|Android(?!.*Mobile)/.test(text) ? 'tablet'
    : /Mobi|iPhone|Android/.test(text) ? 'phone' : 'desktop';
  const pick = (list: [RegExp, string][]) => {
    for (const [pattern, name] of list) {
      const m = pattern.exec(text);
      if (m) {
        const version = m.slice(1).find((v) => v !== undefined);
        return version ? `${name} ${version}` : name;
      }
    }
    return null;
  };
  return { device, browser: pick(BROWSERS), os: pick(SYSTEMS) };
}
