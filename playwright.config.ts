import { defineConfig, devices } from '@playwright/test';

const PORT = Number(process.env.E2E_PORT ?? 4399);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const launchOptions = {
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
};

const IGNORED = process.env.SCREENSHOTS ? [] : ['**/screenshots.spec.ts'];

export default defineConfig({
  testDir: 'tests/e2e',
  // The README screenshots run only through `npm run screenshots` (SCREENSHOTS=1).
  testIgnore: IGNORED,
  globalSetup: './tests/e2e/global-setup.ts',
  fullyParallel: true,
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  timeout: 30_000,
  use: { baseURL: `http://localhost:${PORT}`, launchOptions, trace: 'retain-on-failure' },
  projects: [
    { name: 'desktop', use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 }, launchOptions } },
    // choice-cards.spec.ts sets its widths itself (320, 390, 1280 px): the desktop project runs it once.
    { name: 'phone', use: { ...devices['Pixel 7'], launchOptions }, testIgnore: [...IGNORED, '**/choice-cards.spec.ts'] },
  ],
  webServer: {
    command: 'node scripts/e2e-server.mjs',
    url: `http://localhost:${PORT}/api/settings.php`,
    timeout: 120_000,
    reuseExistingServer: false,
    env: { PORT: String(PORT), SMTP_URL: `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT ?? 2525}`, LOGIN_ACCOUNT_FAILURES: '5',
      // Every test logs in from 127.0.0.1: the per-address login limit (tested in the API suite) would block the rest of the run.
      LOGIN_IP_FAILURES: '100000', RATE_LIMIT_FACTOR: '50',
      // Test runs only (refused in production): a pure red image scores as explicit (docs/safety-images.md).
      IMAGE_SCORER: 'fake' },
  },
});
