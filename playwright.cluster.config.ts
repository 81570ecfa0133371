import { defineConfig, devices } from '@playwright/test';

// `npm run test:cluster`: one serial run against two app processes behind nginx (tests/cluster/cluster.ts
// starts everything; docs/operations.md describes the topology).
const PORT = Number(process.env.CLUSTER_PORT ?? 4530);
const launchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
};

export default defineConfig({
  testDir: 'tests/cluster',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  timeout: 120_000,
  use: { baseURL: `http://localhost:${PORT}`, launchOptions, trace: 'on-first-retry', ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 } },
  projects: [{ name: 'cluster', use: { launchOptions } }],
});
