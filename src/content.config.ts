import { glob } from 'astro/loaders';
import { defineCollection, z } from 'astro:content';
import { loadSites } from './server/sites/site-registry';

/** Legal and help pages: content/pages/<locale>/<page>.md (editors: docs/EDITORS.md). */
const pages = defineCollection({
  loader: glob({ pattern: '*/*.md', base: './content/pages' }),
  schema: z.object({
    title: z.string(),
    description: z.string().max(200),
    /**
     * terms.md only (required there): the moment this version of the terms applies from, ISO 8601 in
     * UTC, e.g. '2023-12-01T12:00:00Z'. Shown as {{terms_date}} (a site added later shows its own date).
     */
    version_date: z.union([z.date(), z.string().datetime({ offset: true })]).transform((d) => new Date(d).toISOString()).optional(),
  }).strict(),
});

/** Branded sites: content/sites/<id>.yaml, validated by the same valibot schema the server uses. */
const sites = defineCollection({
  loader: { name: 'sites', load: async ({ store }) => {
    store.clear();
    for (const site of loadSites()) store.set({ id: site.id, data: site });
  } },
});

/**
 * Landers: content/landers/<locale>/<type>/<slug>.md (slug `default` when the URL has none).
 * Editors: see content/landers/README.md.
 */
const landers = defineCollection({
  loader: glob({ pattern: '*/*/*.md', base: './content/landers' }),
  schema: z.object({
    title: z.string().min(1).max(70),
    description: z.string().min(1).max(200),
    headline: z.string().min(1).max(90),
    cta: z.string().min(1).max(40),
    filter: z.object({
      gender: z.enum(['male', 'female']).optional(),
      min_age: z.number().int().min(18).max(99).optional(),
      max_age: z.number().int().min(18).max(99).optional(),
    }).strict().refine((f) => f.min_age === undefined || f.max_age === undefined || f.min_age <= f.max_age, 'min_age must not exceed max_age').default({}),
    /** Only built on sites of these niches (1–7); every site when absent. */
    niches: z.array(z.number().int().min(1).max(7)).optional(),
    benefits: z.array(z.object({ icon: z.enum(['gift', 'lock', 'pin', 'chat', 'heart', 'star']), title: z.string().max(40), text: z.string().max(140) })).max(6).optional(),
    /** Video lander: a muted looping clip under public/ (or an https URL) and its poster image. */
    video: z.string().regex(/^(\/|https:\/\/)/).optional(),
    poster: z.string().regex(/^(\/|https:\/\/)/).optional(),
  }).strict(),
});

export const collections = { pages, sites, landers };
