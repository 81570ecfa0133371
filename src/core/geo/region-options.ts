import { map } from 'nanostores';
import type { Region } from '../../shared/geo/regions';

/** A region as the country's region select lists it, named in the page's locale. */
export interface RegionOption {
  code: string;
  name: string;
}

// One hashed, cacheable asset per country: a page carries only the regions of the country it shows.
const loaders = import.meta.glob<Region[]>('../../shared/geo/regions/*.json', { import: 'default' });

/** Region options by country, as far as loaded (the page's own first, others when chosen). */
export const $regionOptions = map<Record<string, RegionOption[]>>({});
const loading = new Map<string, Promise<void>>();

/** Loads a country's regions in the locale, once; countries without regions get []. */
export function loadRegionOptions(country: string, locale: string): Promise<void> {
  if (!country || $regionOptions.get()[country]) return Promise.resolve();
  const running = loading.get(country);
  if (running) return running;
  const load = loaders[`../../shared/geo/regions/${country}.json`];
  const done = (load ? load() : Promise.resolve([] as Region[]))
    .then((regions) => {
      $regionOptions.setKey(country, regions.map((r) => ({ code: r.code, name: (r.names as Record<string, string> | undefined)?.[locale] ?? r.name })));
    })
    .catch(() => undefined)
    .finally(() => loading.delete(country));
  loading.set(country, done);
  return done;
}
