import { type FocusEvent, type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { dropdownTarget } from '../../core/shell/dropdown';

/**
 * A menu button's keyboard, as the shell's dropdowns have it (WAI-ARIA menu button): opening focuses an item
 * (Down: the first, Up: the last), arrows, Home and End move through the items, Escape closes and gives focus
 * back to the button, Tab or a click elsewhere closes.
 */
export function useMenu() {
  const [open, setOpen] = useState(false);
  const [start, setStart] = useState<'first' | 'last'>('first');
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const items = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];

  // biome-ignore lint/correctness/useExhaustiveDependencies: the items are read from the menu's DOM once it has opened.
  useEffect(() => {
    if (!open) return;
    const list = items();
    (start === 'last' ? list[list.length - 1] : list[0])?.focus();
  }, [open, start]);

  const close = (focusButton: boolean) => {
    setOpen(false);
    if (focusButton) button.current?.focus();
  };
  const buttonProps = {
    ref: button,
    'aria-haspopup': 'menu' as const,
    'aria-expanded': open,
    onClick: () => { setStart('first'); setOpen(!open); },
    onKeyDown: (event: KeyboardEvent<HTMLButtonElement>) => {
      if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
      event.preventDefault();
      setStart(event.key === 'ArrowUp' ? 'last' : 'first');
      setOpen(true);
    },
  };
  const menuProps = {
    ref: menu,
    onKeyDown: (event: KeyboardEvent<HTMLDivElement>) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        close(true);
        return;
      }
      if (event.key === 'Tab') return close(false);
      const list = items();
      const next = dropdownTarget(event.key, list.indexOf(document.activeElement as HTMLElement), list.length);
      if (next === null) return;
      event.preventDefault();
      list[next].focus();
    },
    onBlur: (event: FocusEvent<HTMLDivElement>) => {
      const to = event.relatedTarget as Node | null;
      if (to && (menu.current?.contains(to) || button.current?.contains(to))) return;
      setOpen(false);
    },
  };
  return { open, close, buttonProps, menuProps };
}
