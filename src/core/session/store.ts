import { atom } from 'nanostores';
import type { SessionUser } from '../../shared/user.contract';
import { api, call, notifySessionEnded, onAuthenticationRequired } from '../api/client';

/** The logged-in member, or null. Pages seed it from the server; actions keep it fresh. */
export const $user = atom<SessionUser | null>(null);

export function setInitialUser(user: SessionUser | null) {
  if ($user.get() === null) $user.set(user);
}

export async function login(email: string, password: string): Promise<SessionUser> {
  const { user } = await call(() => api.post('user.php', { json: { email, password }, retry: 0 }).json<{ user: SessionUser }>());
  $user.set(user);
  return user;
}

export async function refreshUser(): Promise<SessionUser | null> {
  const { user } = await call(() => api.get('user.php').json<{ user: SessionUser | null }>());
  // user.php answers a member whose session ended with user: null (never 403): that is a logout too.
  if (user === null && $user.get() !== null) {
    notifySessionEnded();
    return null;
  }
  $user.set(user);
  return user;
}

export async function logout(): Promise<void> {
  await call(() => api.get('logout.php').json());
  $user.set(null);
}

// Another endpoint said the session is gone: drop the logged-in state and show the page as a visitor.
onAuthenticationRequired(() => {
  if ($user.get() === null) return;
  $user.set(null);
  if (typeof location !== 'undefined') location.reload();
});
