// @ts-check
import node from '@astrojs/node';
import react from '@astrojs/react';
import AstroPWA from '@vite-pwa/astro';
import { defineConfig } from 'astro/config';
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';

// Astro ignores the Host header unless the domain is allowed: allow every site's domains.
const siteDomains = readdirSync('content/sites')
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => parse(readFileSync(`content/sites/${f}`, 'utf8')).domains);

export default defineConfig({
  output: 'server',
  adapter: node({ mode: 'middleware' }),
  integrations: [
    react(),
    AstroPWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      injectRegister: false, // src/core/shell/boot.ts registers it
      manifest: false, // each site serves its own manifest (src/pages/pages/[site]/manifest.webmanifest.ts)
      // Nothing big is precached (a first visit on a phone must not download every bundle in the
      // background); hashed assets are cached as they are used (src/sw.ts).
      injectManifest: { globPatterns: ['favicon.svg'] },
      workbox: { navigateFallback: null },
    }),
  ],
  i18n: {
    locales: ['nl', 'en', 'de', 'it', 'fr', 'es', 'pl', 'da', 'fi', 'nb', 'sv'],
    defaultLocale: 'en',
    routing: 'manual',
  },
  security: {
    allowedDomains: siteDomains.map((hostname) => ({ hostname })),
  },
  build: { inlineStylesheets: 'never' },
  vite: {
    // Chunks under 2 KB merge into a chunk their pages load anyway: each request costs a lander ~0.4 KB of headers.
    build: { assetsInlineLimit: 0, rollupOptions: { output: { experimentalMinChunkSize: 2048 } } },
    ssr: { external: ['better-sqlite3', 'pg', 'geoip-country'] },
  },
  devToolbar: { enabled: false },
});
