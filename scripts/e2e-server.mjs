// Starts the built server on a fresh data directory for the Playwright run.
import { rmSync } from 'node:fs';

// E2E_DATA_DIR lets a second run (another E2E_PORT) keep its own database beside the first.
const dir = process.env.E2E_DATA_DIR ?? 'test-results/e2e-data';
rmSync(dir, { recursive: true, force: true });
process.env.DATA_DIR = dir;
process.env.SEED_PROFILES ??= '300';
process.env.LOG_LEVEL ??= 'warn';
// As `npm start` runs it: the libraries' production builds, in a demo deployment.
process.env.NODE_ENV ??= 'production';
process.env.DEPLOYMENT ??= 'demo';
await import('../dist/server-main.mjs');
