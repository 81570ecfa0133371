// Toasts (issue 13 item 7): short feedback in one of six corners/edges, 350 px wide at most, announced politely.

export const TOAST_POSITIONS = ['top-left', 'top-center', 'top-right', 'bottom-left', 'bottom-center', 'bottom-right'] as const;
export type ToastPosition = (typeof TOAST_POSITIONS)[number];
export type ToastTone = 'info' | 'success' | 'danger';
/** How long a toast stays unless dismissed by a click. */
export const TOAST_DURATION_MS = 4000;

function region(position: ToastPosition): HTMLElement {
  let el = document.querySelector<HTMLElement>(`.toast-region[data-position="${position}"]`);
  if (!el) {
    el = document.createElement('div');
    el.className = 'toast-region';
    el.dataset.position = position;
    el.setAttribute('role', 'status');
    el.setAttribute('aria-live', 'polite');
    document.body.append(el);
  }
  return el;
}

/** Shows a toast; returns a function that removes it early. */
export function showToast(message: string, options: { tone?: ToastTone; position?: ToastPosition; durationMs?: number } = {}): () => void {
  const { tone = 'info', position = 'bottom-center', durationMs = TOAST_DURATION_MS } = options;
  const toast = document.createElement('div');
  toast.className = `toast toast-${tone}`;
  toast.textContent = message;
  const remove = () => toast.remove();
  toast.addEventListener('click', remove);
  region(position).append(toast);
  window.setTimeout(remove, durationMs);
  return remove;
}
