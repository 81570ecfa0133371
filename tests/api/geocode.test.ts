import fc from 'fast-check';
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { geoRoutes } from '../../src/server/api/routes/geo.routes';
import type { ApiEnv } from '../../src/server/api/types';
import type { AppContext } from '../../src/server/app-context';
import { preloadGeocoder } from '../../src/server/geo/geocode.service';
import { getT } from '../../src/shared/i18n';

// Mounted the way src/server/api/app.ts mounts its routes; geoRoutes uses nothing of the app context.
const api = new Hono<ApiEnv>().basePath('/api');
api.use('*', async (c, next) => {
  c.set('t', getT('en'));
  await next();
});
api.route('/', geoRoutes({} as AppContext));

const geocode = (query: Record<string, string>) => api.request(`http://localhost/api/geocode.php?${new URLSearchParams(query)}`);

async function expectInvalid(query: Record<string, string>) {
  const res = await geocode(query);
  expect(res.status, JSON.stringify(query)).toBe(400);
  const body = await res.json();
  expect(body.error).toBe('invalid_input');
  expect(typeof body.message).toBe('string');
}

describe('GET /api/geocode.php', () => {
  beforeAll(() => preloadGeocoder());

  it('answers country, region and city', async () => {
    const res = await geocode({ lat: '52.37', lon: '4.90' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ country: 'NL', region: 'noord-holland', city: 'Amsterdam' });
    const munich = await (await geocode({ lat: '48.14', lon: '11.58' })).json();
    expect(munich).toMatchObject({ country: 'DE', region: 'bayern' });
  });

  it('answers nulls mid-ocean', async () => {
    const res = await geocode({ lat: '30', lon: '-40' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ country: null, region: null, city: null });
  });

  it('refuses missing, empty, malformed and over-long coordinates', async () => {
    await expectInvalid({});
    await expectInvalid({ lat: '52.37' });
    await expectInvalid({ lon: '4.9' });
    for (const bad of ['', ' ', ' 52', '52 ', '0x10', 'Infinity', '-Infinity', 'NaN', '1,5', '52.37abc', '--1', '.', 'e5', '5'.repeat(25)]) {
      await expectInvalid({ lat: bad, lon: '4.9' });
      await expectInvalid({ lat: '52.37', lon: bad });
    }
    await expectInvalid({ lat: '52.3700000000000000000000000000001', lon: '4.9' }); // 34 characters: over the limit
  });

  it('refuses any string that is not a decimal number', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 30 }).filter((s) => !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)),
        fc.boolean(),
        async (s, asLat) => expectInvalid(asLat ? { lat: s, lon: '4.9' } : { lat: '52.37', lon: s }),
      ),
    );
  });

  it('refuses coordinates out of range', async () => {
    const beyond = (max: number) => fc.oneof(fc.double({ min: max, minExcluded: true, noNaN: true }), fc.double({ max: -max, maxExcluded: true, noNaN: true }));
    await fc.assert(fc.asyncProperty(beyond(90), (lat) => expectInvalid({ lat: String(lat), lon: '0' })));
    await fc.assert(fc.asyncProperty(beyond(180), (lon) => expectInvalid({ lat: '0', lon: String(lon) })));
  });

  it('accepts every in-range number as JavaScript writes it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: -90, max: 90, noNaN: true }), fc.double({ min: -180, max: 180, noNaN: true }), async (lat, lon) => {
        const res = await geocode({ lat: String(lat), lon: String(lon) });
        expect(res.status, `${lat},${lon}`).toBe(200);
        expect(Object.keys(await res.json()).sort()).toEqual(['city', 'country', 'region']);
      }),
    );
  });
});
