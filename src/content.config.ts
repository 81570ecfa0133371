import { glob } from 'astro/loaders';
import { defineCollection, z } from 'astro:content';
import { loadSites } from './server/sites/site-registry';

/** Legal and help pages: content/pages/<locale>/<page>.md. */
const pages = defineCollection({
  loader: glob({ pattern: '*/*.md', base: './content/pages' }),
  schema: z.object({ title: z.string(), description: z.string().max(200) }),
});

/** Branded sites: content/sites/<id>.yaml, validated by the same valibot schema the server uses. */
const sites = defineCollection({
  loader: { name: 'sites', load: async ({ store }) => {
    store.clear();
    for (const site of loadSites()) store.set({ id: site.id, data: site });
  } },
});

export const collections = { pages, sites };
