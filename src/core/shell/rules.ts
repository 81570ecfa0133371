import { BACK_BUTTON_ROUTES, CHUNK_RELOAD_GUARD_MS } from '../../shared/constants';

export interface EntryWarningInput {
  standalone: boolean;
  dismissed: boolean;
  enabled: boolean;
  loggedIn: boolean;
  /** Visitor country; null when unknown (then the warning shows, to be safe). */
  country: string | null;
  allowedCountries: readonly string[];
  /** Chat and Lander layouts: an unknown country does not show it. */
  requireKnownCountry?: boolean;
}

/** SPEC §2: shown once unless installed app, dismissed, disabled, logged in, or country not in the list. */
export function shouldShowEntryWarning(input: EntryWarningInput): boolean {
  if (input.standalone || input.dismissed || !input.enabled || input.loggedIn) return false;
  if (input.country && !input.allowedCountries.includes(input.country)) return false;
  // Chat and Lander layouts (SPEC §9): only for a known country of the list, never for an unknown one.
  if (input.requireKnownCountry && !input.country) return false;
  return true;
}

/** SPEC §2: the Back button shows only in an installed app with history on a few routes. */
export function shouldShowBackButton(standalone: boolean, historyLength: number, route: string): boolean {
  return standalone && historyLength > 1 && (BACK_BUTTON_ROUTES as readonly string[]).includes(route);
}

/** A chunk-load failure reloads the page at most once per 60 seconds. */
export function shouldReloadAfterChunkError(lastReloadAt: number | null, now: number): boolean {
  return lastReloadAt === null || now - lastReloadAt >= CHUNK_RELOAD_GUARD_MS;
}

/** The profile a signup link is aimed at: its data-target, or the member in its address (/members/{id}/signup). */
export function signupTargetOf(dataTarget: string | undefined, href: string | null): string | null {
  if (dataTarget && /^\d+$/.test(dataTarget)) return dataTarget;
  return (href && /^\/members\/(\d+)\/signup(?:[?#]|$)/.exec(href)?.[1]) || null;
}
