/** The clock every rule reads time from, so tests can move it. */
export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };
