// Starts the built server on a fresh data directory for the Playwright run.
import { rmSync } from 'node:fs';

const dir = 'test-results/e2e-data';
rmSync(dir, { recursive: true, force: true });
process.env.DATA_DIR = dir;
process.env.SEED_PROFILES ??= '300';
process.env.LOG_LEVEL ??= 'warn';
await import('../dist/server-main.mjs');
