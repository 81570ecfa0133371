// After `astro build`: precompress client files (brotli + gzip) and bundle the node entry.
import { copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const CLIENT = 'dist/client';
const COMPRESSIBLE = /\.(html|css|js|mjs|json|svg|xml|txt|webmanifest)$/;

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

let files = 0;
for (const file of walk(CLIENT)) {
  if (!COMPRESSIBLE.test(file)) continue;
  const body = readFileSync(file);
  if (body.length < 256) continue;
  writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
  writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
  files++;
}
console.log(`precompressed ${files} files`);

await build({
  entryPoints: ['src/server/main.ts'],
  outfile: 'dist/server-main.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
// The explicit-image model's worker thread (src/server/safety/images.ts) is started from a file beside the bundle.
copyFileSync('src/server/safety/images.worker.mjs', 'dist/images.worker.mjs');
writeFileSync('dist/.build-stamp', new Date().toISOString());
console.log('bundled dist/server-main.mjs');
