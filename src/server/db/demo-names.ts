/**
 * Names of the demo logins' profiles. They appear among a demo site's members (home faces, search), so they read
 * as a member's name; chosen outside faker's name lists, so no seeded profile shares them.
 */
export const DEMO_NAMES = {
  free: { female: 'Marjolein', male: 'Rutger' },
  premium: { female: 'Elske', male: 'Gerben' },
} as const;
