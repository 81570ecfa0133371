import { atom } from 'nanostores';

export type ToastTone = 'info' | 'success' | 'error';
export interface ToastAction {
  label: string;
  run(): void;
}
export interface Toast {
  id: number;
  text: string;
  tone: ToastTone;
  action?: ToastAction;
  /** A later toast with the same key replaces this one. */
  key?: string;
}

/** How long a toast stays: errors with a way out stay until used or closed. */
export const TOAST_MS = { info: 5_000, success: 4_000, error: 8_000 } as const;
/** At most this many at once; the oldest gives way. */
const MAX_TOASTS = 3;

/** The toasts on screen (SPEC §9: 350 px wide, six positions; rendered by src/core/toast/render.ts). */
export const $toasts = atom<Toast[]>([]);
let nextId = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

/** Shows a toast; a toast with the same `key` replaces the earlier one. Returns its id. */
export function showToast(toast: Omit<Toast, 'id'> & { sticky?: boolean }): number {
  const id = nextId++;
  if (toast.key) dismissToastKey(toast.key);
  const entry: Toast = { id, text: toast.text, tone: toast.tone, action: toast.action, key: toast.key };
  const list = [...$toasts.get(), entry];
  while (list.length > MAX_TOASTS) dismissTimer(list.shift() as Toast);
  $toasts.set(list);
  if (!(toast.sticky || (toast.tone === 'error' && toast.action))) {
    timers.set(id, setTimeout(() => dismissToast(id), TOAST_MS[toast.tone]));
  }
  return id;
}

function dismissTimer(toast: Toast) {
  clearTimeout(timers.get(toast.id));
  timers.delete(toast.id);
}

export function dismissToast(id: number) {
  const toast = $toasts.get().find((t) => t.id === id);
  if (!toast) return;
  dismissTimer(toast);
  $toasts.set($toasts.get().filter((t) => t.id !== id));
}

/** Closes the toast shown with this key, if any. */
export function dismissToastKey(key: string) {
  for (const toast of $toasts.get()) if (toast.key === key) dismissToast(toast.id);
}

/** Drops every toast (tests, page changes). */
export function clearToasts() {
  for (const toast of $toasts.get()) dismissTimer(toast);
  $toasts.set([]);
}

/** Texts the framework-free parts need, read from the page (`#toasts` data attributes). */
export function toastText(name: 'retrying' | 'close' | 'saving' | 'saved' | 'failed' | 'tryAgain'): string {
  const el = typeof document === 'undefined' ? null : document.getElementById('toasts');
  return el?.dataset[name] ?? '';
}
