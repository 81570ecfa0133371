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
  let followUp: Promise<void> | null = null;
  const take = (answer: T) => {
    apply(answer);
    $status.set('ready');
  };
  /**
   * GET the list; a failure keeps what is shown (an error only when nothing was ever shown). `fresh`: the
   * caller knows of a change made after a running request may have been answered (a new chat's first
   * message): it gets one more request after that one, shared with every other such caller meanwhile.
   */
  const load = (options: { fresh?: boolean } = {}): Promise<void> => {
    if (inFlight) {
      if (options.fresh !== true) return inFlight;
      followUp ??= inFlight.then(() => {
        followUp = null;
        return load();
      });
      return followUp;
    }
    if ($status.get() !== 'ready') $status.set('loading');
    inFlight = call(() => api.get(path).json<T>())
      .then(take)
      .catch(() => { if ($status.get() !== 'ready') $status.set('error'); })
      .finally(() => { inFlight = null; });
    return inFlight;
  };
  return {
    $status,
    /** The page's server-rendered answer, so there is no spinner on first paint. */
    setInitial(answer: T) {
      if ($status.get() !== 'ready') take(answer);
    },
    load,
    /** Test helper: back to never loaded. */
    reset() {
      $status.set('idle');
      inFlight = null;
      followUp = null;
    },
  };
}
