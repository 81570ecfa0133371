/** A slot-limited runner; `load()` tells how much work runs and waits (for /metrics). */
export interface ConcurrencyLimit {
  <T>(work: () => Promise<T>): Promise<T>;
  load(): { running: number; waiting: number };
}

/**
 * Runs at most `max` jobs at once; the rest wait in order. Guards CPU- and memory-heavy work
 * (password hashes, image decoding) so a burst of requests cannot take every core or the heap.
 */
export function concurrencyLimit(max: number): ConcurrencyLimit {
  let running = 0;
  const waiting: (() => void)[] = [];
  const withSlot = async function withSlot<T>(work: () => Promise<T>): Promise<T> {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  } as ConcurrencyLimit;
  withSlot.load = () => ({ running, waiting: waiting.length });
  return withSlot;
}
