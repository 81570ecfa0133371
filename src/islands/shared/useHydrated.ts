import { useEffect, useState } from 'react';

/** False on the server and in the first browser render, so clock- and time-zone-dependent text never mismatches hydration. */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}
