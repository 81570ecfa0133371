import { atom } from 'nanostores';
import { api, call } from '../api/client';

/** Geolocation permission: unsupported, unknown (not asked yet), or the browser's own state. */
export type GeoPermission = 'unsupported' | 'unknown' | PermissionState;
export interface Geocode {
  country: string | null;
  region: string | null;
  city: string | null;
}

export const $geoPermission = atom<GeoPermission>('unknown');
export const $geocode = atom<Geocode | null>(null);

/** Reads the current permission without prompting. */
export async function readGeoPermission(): Promise<GeoPermission> {
  if (typeof navigator === 'undefined' || !('geolocation' in navigator)) {
    $geoPermission.set('unsupported');
    return 'unsupported';
  }
  try {
    const status = await navigator.permissions.query({ name: 'geolocation' });
    $geoPermission.set(status.state);
    status.onchange = () => $geoPermission.set(status.state);
    return status.state;
  } catch {
    return $geoPermission.get();
  }
}

/** Asks for the position (prompting if needed) and reverse-geocodes it on our server, offline. */
export async function locate(): Promise<Geocode | null> {
  if ((await readGeoPermission()) === 'unsupported') return null;
  const position = await new Promise<GeolocationPosition | null>((resolve) =>
    navigator.geolocation.getCurrentPosition(resolve, () => resolve(null), { maximumAge: 600_000, timeout: 15_000 }));
  await readGeoPermission();
  if (!position) return null;
  const { latitude, longitude } = position.coords;
  const result = await call(() => api.get('geocode.php', { searchParams: { lat: latitude.toFixed(4), lon: longitude.toFixed(4) } }).json<Geocode>());
  $geocode.set(result);
  return result;
}
