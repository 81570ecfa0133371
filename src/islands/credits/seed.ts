import { useStore } from '@nanostores/react';
import type { ReadableAtom } from 'nanostores';
import { useState } from 'react';

const isServer = typeof window === 'undefined';

/**
 * Seeds a store with the page's server-rendered data once, in the browser, before the first
 * render reads it; on the server the island renders the page's data as it is.
 */
export function useSeeded<T, S>(store: ReadableAtom<T>, seed: () => void, serverValue: S): T | S {
  const [seeded] = useState(() => {
    if (isServer) return false;
    seed();
    return true;
  });
  const value = useStore(store);
  return seeded ? value : serverValue;
}
