// `npm start`: build when the sources are newer than the last build, then run the server.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const STAMP = 'dist/.build-stamp';
const SOURCES = ['src', 'content', 'public', 'astro.config.mjs', 'package.json'];

function newest(p) {
  const stat = statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(p).map((n) => newest(path.join(p, n))));
}

const stale = !existsSync(STAMP) || SOURCES.some((s) => existsSync(s) && newest(s) > statSync(STAMP).mtimeMs);
if (stale) {
  console.log('Building (sources changed since the last build)…');
  const result = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
// React and the other libraries run their production builds; whether this is the zero-setup demo
// (mailbox, demo data) or a real deployment is DEPLOYMENT's business, not NODE_ENV's.
if (!process.env.NODE_ENV) {
  process.env.NODE_ENV = 'production';
  process.env.DEPLOYMENT ??= 'demo';
}
if (!process.argv.includes('--build-only')) await import(path.resolve('dist/server-main.mjs'));
