import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let geoip: { lookup(ip: string): { country: string } | null } | null = null;

/** Offline country lookup (geoip-country); null for private, loopback or unknown addresses. */
export function countryForIp(ip: string | null): string | null {
  if (!ip) return null;
  const address = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (address === '::1' || address.startsWith('127.') || address.startsWith('10.') || address.startsWith('192.168.')) return null;
  geoip ??= require('geoip-country');
  const hit = geoip?.lookup(address);
  return hit?.country ?? null;
}
