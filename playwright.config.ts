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
  // A trace only when CI runs a failed test again: recording every test (screencast, DOM snapshots) cost a fifth of the
  // suite's time. Locally, `npx playwright test --trace on` records them.
  use: { baseURL: `http://localhost:${PORT}`, launchOptions, trace: 'on-first-retry' },
  // Every journey whose screens differ by width runs on a desktop and on a phone. What does not depend on
  // the width runs once, in the desktop project: tests tagged @any-width (redirects, mails, texts, money
  // rules behind the same screens …) and the specs below, which check HTTP answers, rules or the console's
  // logic (the console's phone layout: admin-console.spec.ts). Specs that set their widths themselves run
  // in one project: choice-cards (320, 390, 1280 px) on the desktop, phone-widths (320–414 px) on the phone.
  projects: [
    // Tests tagged @phones check what is tightest on a phone, and only there (their desktop side is covered elsewhere).
    { name: 'desktop', use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 }, launchOptions }, grepInvert: /@phones/, testIgnore: [...IGNORED, '**/phone-widths.spec.ts'] },
    {
      name: 'phone', use: { ...devices['Pixel 7'], launchOptions }, grepInvert: /@any-width/,
      testIgnore: [...IGNORED, ...['choice-cards', 'admin', 'bad-input', 'feedback', 'language', 'member-frames', 'pwa', 'safety-images', 'security', 'truthful-messages', 'wire'].map((spec) => `**/${spec}.spec.ts`)],
    },
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
