import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppContext } from '../../app-context';
import { reverseGeocode } from '../../geo/geocode.service';
import { jsonError } from '../http-errors';
import type { ApiEnv } from '../types';

/**
 * A decimal coordinate in a range. Plain decimals only ("52.37", "-4", ".5", "1e-7" as String(number) writes tiny
 * values); no empty strings (Number('') is 0), whitespace, hex or "Infinity". 32 characters fit every String(number) (down to 1e-7 it is written out in decimals: up to 26).
 */
const coordinate = (max: number) =>
  v.pipe(
    v.string(),
    v.maxLength(32),
    v.regex(/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i),
    v.transform(Number),
    v.number(),
    v.minValue(-max),
    v.maxValue(max),
  );

const PositionSchema = v.object({ lat: coordinate(90), lon: coordinate(180) });

/** Offline reverse geocoding: country, region of our region lists, and nearest city of a position. */
export function geoRoutes(_app: AppContext) {
  const routes = new Hono<ApiEnv>();

  routes.get('/geocode.php', (c) => {
    const position = v.safeParse(PositionSchema, { lat: c.req.query('lat'), lon: c.req.query('lon') });
    if (!position.success) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    return c.json(reverseGeocode(position.output.lat, position.output.lon));
  });

  return routes;
}
