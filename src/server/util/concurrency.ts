/**
 * Runs at most `max` jobs at once; the rest wait in order. Guards CPU- and memory-heavy work
 * (password hashes, image decoding) so a burst of requests cannot take every core or the heap.
 */
export function concurrencyLimit(max: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function withSlot<T>(work: () => Promise<T>): Promise<T> {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
