import { atom } from 'nanostores';
import { api, call } from './client';

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

/**
 * A member-area list kept fresh by pages and the periodic refresh (chats, likes): concurrent
 * callers share one request, and 'loading' shows only before the first answer (SPEC §7: progress
 * indicator on first load only). `apply` puts an answer into the area's stores.
 */
export function createRefreshedList<T>(path: string, apply: (answer: T) => void) {
  const $status = atom<LoadStatus>('idle');
  let inFlight: Promise<void> | null = null;
  const take = (answer: T) => {
    apply(answer);
    $status.set('ready');
  };
  return {
    $status,
    /** The page's server-rendered answer, so there is no spinner on first paint. */
    setInitial(answer: T) {
      if ($status.get() !== 'ready') take(answer);
    },
    /** GET the list; a failure keeps what is shown (an error only when nothing was ever shown). */
    load(): Promise<void> {
      if (inFlight) return inFlight;
      if ($status.get() !== 'ready') $status.set('loading');
      inFlight = call(() => api.get(path).json<T>())
        .then(take)
        .catch(() => { if ($status.get() !== 'ready') $status.set('error'); })
        .finally(() => { inFlight = null; });
      return inFlight;
    },
    /** Test helper: back to never loaded. */
    reset() {
      $status.set('idle');
      inFlight = null;
    },
  };
}
