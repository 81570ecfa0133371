import { $toasts, dismissToast } from './toast.store';

/** Renders the toast store into the layout's `#toasts` region (plain DOM: it runs on every page). */
export function renderToasts(root: HTMLElement) {
  const closeLabel = root.dataset.close ?? '×';
  return $toasts.subscribe((toasts) => {
    const shown = new Set(toasts.map((t) => String(t.id)));
    for (const el of [...root.children] as HTMLElement[]) if (!shown.has(el.dataset.id ?? '')) el.remove();
    for (const toast of toasts) {
      if (root.querySelector(`[data-id="${toast.id}"]`)) continue;
      const el = document.createElement('div');
      el.className = `toast toast-${toast.tone}`;
      el.dataset.id = String(toast.id);
      el.setAttribute('role', toast.tone === 'error' ? 'alert' : 'status');
      const text = document.createElement('p');
      text.textContent = toast.text;
      el.append(text);
      const actions = document.createElement('div');
      actions.className = 'toast-actions';
      if (toast.action) {
        const action = toast.action;
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'btn btn-primary btn-sm';
        button.textContent = action.label;
        button.addEventListener('click', () => {
          dismissToast(toast.id);
          action.run();
        });
        actions.append(button);
      }
      const close = document.createElement('button');
      close.type = 'button';
      close.className = 'toast-close';
      close.setAttribute('aria-label', closeLabel);
      close.textContent = '×';
      close.addEventListener('click', () => dismissToast(toast.id));
      actions.append(close);
      el.append(actions);
      root.append(el);
    }
  });
}
