import type { Locale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';

/** Where a request came from: its site, language, origin for links, and client address. */
export interface Caller {
  site: Site;
  locale: Locale;
  origin: string;
  ip: string | null;
  userAgent?: string | null;
}
