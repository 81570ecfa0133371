/** Which item a key moves focus to in a list of `count` items (current -1: none focused yet), or null for other keys. */
export function dropdownTarget(key: string, current: number, count: number): number | null {
  if (count === 0) return null;
  switch (key) {
    case 'ArrowDown': return current < 0 ? 0 : (current + 1) % count;
    case 'ArrowUp': return current < 0 ? count - 1 : (current - 1 + count) % count;
    case 'Home': return 0;
    case 'End': return count - 1;
    default: return null;
  }
}

/**
 * Dropdowns (`<details data-dropdown>` with a list of links): one open at a time, closed by an outside
 * click; Up/Down/Home/End move through the links (and open the list from its button), Escape closes it
 * and gives focus back to the button.
 */
export function enhanceDropdowns(dropdowns: HTMLDetailsElement[]) {
  const items = (d: HTMLDetailsElement) => [...d.querySelectorAll<HTMLElement>('.dropdown-menu a, .dropdown-menu button')];
  document.addEventListener('click', (event) => {
    for (const d of dropdowns) if (d.open && !d.contains(event.target as Node)) d.open = false;
  });
  for (const d of dropdowns) {
    const summary = d.querySelector('summary');
    d.addEventListener('toggle', () => {
      if (d.open) for (const other of dropdowns) if (other !== d) other.open = false;
    });
    d.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        if (!d.open) return;
        event.preventDefault();
        d.open = false;
        summary?.focus();
        return;
      }
      const list = items(d);
      const current = list.indexOf(document.activeElement as HTMLElement);
      // From the button only Up/Down open the list; Home/End there keep their page meaning.
      if (current < 0 && event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
      const target = dropdownTarget(event.key, current, list.length);
      if (target === null) return;
      event.preventDefault();
      d.open = true;
      list[target]?.focus();
    });
  }
}
