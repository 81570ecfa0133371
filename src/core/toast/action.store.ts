import { map } from 'nanostores';
import { ApiError } from '../api/client';
import { dismissToastKey, showToast, toastText } from './toast.store';

/** Member actions in flight, by key: their controls are disabled and say so until the outcome is known. */
export const $pendingActions = map<Record<string, boolean>>({});

export type ActionOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface ActionOptions {
  /** Text of the success toast; false when the screen itself shows the outcome (a sent message). Default: "Saved". */
  success?: string | false;
  /** Shows a "Saving…" toast at once (default); false when the control itself shows it (a button saying "Sending…"). */
  savingToast?: boolean;
}

/**
 * Runs one member action with feedback from start to end: marked pending at once (a second click while it
 * runs does nothing), and ending in a toast — success, or the failure with a "Try again" action that runs
 * it again. Network errors, 5xx and 429 were already retried by the client; a 4xx fails at once.
 */
export async function runAction<T>(key: string, work: () => Promise<T>, options: ActionOptions = {}): Promise<ActionOutcome<T>> {
  if ($pendingActions.get()[key]) return { ok: false, error: new Error('already running') };
  const toastKey = `action:${key}`;
  $pendingActions.setKey(key, true);
  if (options.savingToast === false) dismissToastKey(toastKey);
  else showToast({ key: toastKey, text: toastText('saving'), tone: 'info', sticky: true });
  try {
    const value = await work();
    if (options.success === false) dismissToastKey(toastKey);
    else showToast({ key: toastKey, text: options.success ?? toastText('saved'), tone: 'success' });
    return { ok: true, value };
  } catch (error) {
    const text = error instanceof ApiError && error.status < 500 ? error.message : toastText('failed');
    showToast({ key: toastKey, text, tone: 'error', action: { label: toastText('tryAgain'), run: () => void runAction(key, work, options) } });
    return { ok: false, error };
  } finally {
    $pendingActions.setKey(key, false);
  }
}
