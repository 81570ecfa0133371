import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reverseGeocode } from '../../src/server/geo/geocode.service';
import { REGIONS } from '../../src/shared/geo/regions';

describe('reverseGeocode', () => {
  it.each([
    ['Amsterdam', 52.37, 4.9, 'NL', 'noord-holland', ['Amsterdam']],
    ['Munich', 48.14, 11.58, 'DE', 'bayern', ['München', 'Munich']],
    ['Brussels', 50.85, 4.35, 'BE', 'brussels', ['Brussels', 'Bruxelles', 'Brussel']],
    ['Zürich', 47.37, 8.54, 'CH', 'zuerich', ['Zürich']],
    ['New York', 40.71, -74.0, 'US', 'new-york', ['New York City', 'New York']],
    ['Sydney', -33.87, 151.21, 'AU', 'new-south-wales', ['Sydney']],
    ['Vienna', 48.21, 16.37, 'AT', 'wien', ['Vienna', 'Wien']],
    ['London', 51.5, -0.12, 'GB', 'london', ['London']],
  ])('%s', (_label, lat, lon, country, region, names) => {
    const result = reverseGeocode(lat, lon);
    expect(result.country).toBe(country);
    expect(result.region).toBe(region);
    expect(names).toContain(result.city);
  });

  it('answers nulls far from any city', () => {
    expect(reverseGeocode(30, -40)).toEqual({ country: null, region: null, city: null });
    expect(reverseGeocode(-90, 0)).toEqual({ country: null, region: null, city: null });
    expect(reverseGeocode(0, -180)).toEqual({ country: null, region: null, city: null });
  });

  it('answers a null region in countries without a region list', () => {
    expect(reverseGeocode(35.68, 139.69)).toEqual({ country: 'JP', region: null, city: 'Tokyo' });
  });

  it('tells namesakes apart by their state', () => {
    expect(reverseGeocode(45.52, -122.68)).toMatchObject({ region: 'oregon', city: 'Portland' });
    expect(reverseGeocode(43.66, -70.26)).toMatchObject({ region: 'maine', city: 'Portland' });
    expect(reverseGeocode(39.1, -94.58)).toMatchObject({ region: 'missouri', city: 'Kansas City' });
    expect(reverseGeocode(39.11, -94.63)).toMatchObject({ region: 'kansas', city: 'Kansas City' });
    expect(reverseGeocode(50.7, -1.29)).toMatchObject({ country: 'GB', region: 'south-east', city: 'Newport' });
    expect(reverseGeocode(51.58, -3.0)).toMatchObject({ country: 'GB', region: 'wales', city: 'Newport' });
  });

  it('answers the city a district belongs to, not a nearer town across the border', () => {
    // Spandau (Berlin) is nearer to Falkensee, Brandenburg, than to the centre of Berlin.
    expect(reverseGeocode(52.535, 13.2)).toEqual({ country: 'DE', region: 'berlin', city: 'Berlin' });
  });

  it('maps regions without an admin code of their own by name or centroid', () => {
    expect(reverseGeocode(53.35, -6.26)).toMatchObject({ country: 'IE', region: 'dublin', city: 'Dublin' });
    expect(reverseGeocode(51.05, 3.72)).toMatchObject({ country: 'BE', region: 'oost-vlaanderen' });
    expect(reverseGeocode(59.74, 10.2)).toMatchObject({ country: 'NO', region: 'buskerud', city: 'Drammen' });
  });

  it('answers a region from the country’s list, or nulls, for any position', () => {
    const lat = fc.double({ min: -90, max: 90, noNaN: true });
    const lon = fc.double({ min: -180, max: 180, noNaN: true });
    fc.assert(
      fc.property(lat, lon, (a, b) => {
        const { country, region, city } = reverseGeocode(a, b);
        if (country === null) return region === null && city === null;
        const codes = (REGIONS[country] ?? []).map((r) => r.code);
        return typeof city === 'string' && city.length > 0 && (codes.length ? codes.includes(region ?? '') : region === null);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses positions off the globe', () => {
    expect(() => reverseGeocode(91, 0)).toThrow(RangeError);
    expect(() => reverseGeocode(0, -180.5)).toThrow(RangeError);
    expect(() => reverseGeocode(Number.NaN, 0)).toThrow(RangeError);
  });
});
