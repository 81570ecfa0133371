import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { parse as parseYaml } from 'yaml';
import { type Site, SiteSchema } from '../../shared/site.schema';
import type { Deployment } from '../config';

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

export interface SiteOriginOptions {
  deployment: Deployment;
  port: number;
  /** SITE_ORIGINS overrides, by site id. */
  siteOrigins: Record<string, string>;
}

const LOCAL_DOMAIN = /(^|\.)localhost$/;

/** A host only a demo answers: localhost, *.localhost, a loopback address. */
export function isDemoHost(domain: string): boolean {
  const host = domain.toLowerCase();
  return LOCAL_DOMAIN.test(host) || host.startsWith('127.') || host === '[::1]' || host === '::1';
}

/**
 * The public origin of each site, from configuration only (never from a request): SITE_ORIGINS,
 * else the YAML's public_origin in production, else the site's local domain and port in a demo.
 * Production refuses sites without an https origin.
 */
export function siteOrigins(sites: Site[], options: SiteOriginOptions): Map<string, string> {
  const out = new Map<string, string>();
  const missing: string[] = [];
  for (const site of sites) {
    const configured = options.siteOrigins[site.id];
    if (options.deployment === 'production') {
      const origin = configured ?? site.public_origin;
      if (origin?.startsWith('https://')) out.set(site.id, new URL(origin).origin);
      else missing.push(site.id);
      continue;
    }
    const local = site.domains.find((d) => LOCAL_DOMAIN.test(d)) ?? site.domains[0];
    out.set(site.id, configured ?? `http://${local}${options.port === 80 ? '' : `:${options.port}`}`);
  }
  if (missing.length) {
    throw new Error(
      `No https public origin for site(s) ${missing.join(', ')}: set public_origin in content/sites/<id>.yaml or SITE_ORIGINS=<id>=https://<domain> (mail links never come from the request's Host header)`,
    );
  }
  return out;
}

/** Normalises a Host header value: lower case, no port, no leading "www.", no trailing dot. */
export function hostName(host: string): string {
  return host.toLowerCase().replace(/:\d+$/, '').replace(/^www\./, '').replace(/\.$/, '');
}

/** Looks sites up by host name; in a demo, `localhost` and unknown hosts get the default site. */
export class SiteRegistry {
  readonly sites: Site[];
  readonly defaultSite: Site;
  /** Production: an unknown host gets no site at all (see `knowsHost`). */
  readonly strictHosts: boolean;
  private readonly byDomain = new Map<string, Site>();
  private readonly byId = new Map<string, Site>();
  private readonly origins: Map<string, string>;

  constructor(sites: Site[], options: SiteOriginOptions = { deployment: 'demo', port: 4321, siteOrigins: {} }) {
    this.sites = sites;
    this.defaultSite = sites.find((s) => s.domains.includes('localhost')) ?? sites[0];
    this.strictHosts = options.deployment === 'production';
    this.origins = siteOrigins(sites, options);
    for (const site of sites) {
      this.byId.set(site.id, site);
      // The demo's hosts (localhost, *.localhost, 127.0.0.1) answer only in a demo: production knows its real domains.
      for (const domain of site.domains) if (!this.strictHosts || !isDemoHost(domain)) this.byDomain.set(domain.toLowerCase(), site);
      // The configured origin's host answers for its site too (e.g. www.kindred.example).
      this.byDomain.set(hostName(new URL(this.origins.get(site.id) as string).host), site);
    }
  }

  /** Site for a Host header value (port and a leading "www." are ignored). */
  forHost(host: string | null | undefined): Site {
    if (!host) return this.defaultSite;
    return this.byDomain.get(hostName(host)) ?? this.defaultSite;
  }

  /** False for a host no site lists: production answers such requests without a site. */
  knowsHost(host: string | null | undefined): boolean {
    return !this.strictHosts || (!!host && this.byDomain.has(hostName(host)));
  }

  /** The site's public origin for links in mails and push messages (scheme://host[:port]). */
  origin(site: Site): string {
    return this.origins.get(site.id) as string;
  }

  byIdOrNull(id: string): Site | null {
    return this.byId.get(id) ?? null;
  }

  /** Every domain of every site, for Astro's security.allowedDomains. */
  allDomains(): string[] {
    return this.sites.flatMap((s) => s.domains);
  }
}
