import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { parse as parseYaml } from 'yaml';
import { type Site, SiteSchema } from '../../shared/site.schema';

/** Reads and validates every content/sites/*.yaml; the first file by name order is the fallback site. */
export function loadSites(contentDir = path.resolve(process.env.CONTENT_DIR ?? 'content')): Site[] {
  const dir = path.join(contentDir, 'sites');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
  const sites = files.map((file) => {
    const raw = parseYaml(readFileSync(path.join(dir, file), 'utf8'));
    const result = v.safeParse(SiteSchema, raw);
    if (!result.success) {
      const issues = result.issues.map((i) => `${v.getDotPath(i) ?? ''}: ${i.message}`).join('; ');
      throw new Error(`content/sites/${file} is invalid: ${issues}`);
    }
    return { id: file.replace(/\.yaml$/, ''), ...result.output };
  });
  if (sites.length === 0) throw new Error(`No sites in ${dir}`);
  return sites;
}

/** Looks sites up by host name; `localhost` and unknown hosts get the default site. */
export class SiteRegistry {
  readonly sites: Site[];
  readonly defaultSite: Site;
  private readonly byDomain = new Map<string, Site>();
  private readonly byId = new Map<string, Site>();

  constructor(sites: Site[]) {
    this.sites = sites;
    this.defaultSite = sites.find((s) => s.domains.includes('localhost')) ?? sites[0];
    for (const site of sites) {
      this.byId.set(site.id, site);
      for (const domain of site.domains) this.byDomain.set(domain.toLowerCase(), site);
    }
  }

  /** Site for a Host header value (port and a leading "www." are ignored). */
  forHost(host: string | null | undefined): Site {
    if (!host) return this.defaultSite;
    const name = host.toLowerCase().replace(/:\d+$/, '').replace(/^www\./, '').replace(/\.$/, '');
    return this.byDomain.get(name) ?? this.defaultSite;
  }

  byIdOrNull(id: string): Site | null {
    return this.byId.get(id) ?? null;
  }

  /** Every domain of every site, for Astro's security.allowedDomains. */
  allDomains(): string[] {
    return this.sites.flatMap((s) => s.domains);
  }
}
