import { type MouseEvent, type ReactNode, useEffect, useRef } from 'react';

interface Props {
  open: boolean;
  onClose: () => void;
  /** id of the heading that names the dialog. */
  labelledBy: string;
  size?: 'sm' | 'md' | 'lg' | 'xl';
  className?: string;
  /** Closes on a click anywhere in the dialog except inside elements marked data-keep-open. */
  closeOnAnyClick?: boolean;
  children: ReactNode;
}

/**
 * The code base's modal: a native <dialog> shown with showModal(), so the page behind is inert
 * (focus stays inside) and Escape closes it; focus starts on [data-autofocus] if present and
 * returns where it was when the dialog closes.
 */
export function Modal({ open, onClose, labelledBy, size = 'md', className = '', closeOnAnyClick = false, children }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const returnFocus = useRef<HTMLElement | null>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      returnFocus.current = document.activeElement as HTMLElement | null;
      dialog.showModal();
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const onDialogClose = () => {
      returnFocus.current?.focus?.();
      returnFocus.current = null;
      onClose();
    };
    dialog.addEventListener('close', onDialogClose);
    return () => dialog.removeEventListener('close', onDialogClose);
  }, [onClose]);

  const onClick = (event: MouseEvent<HTMLDialogElement>) => {
    const target = event.target as HTMLElement;
    if (closeOnAnyClick ? !target.closest('[data-keep-open]') : target === ref.current) ref.current?.close();
  };

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: Escape closes the native dialog; the click is the backdrop.
    <dialog ref={ref} className={`modal${size === 'md' ? '' : ` modal-${size}`} ${className}`} aria-labelledby={labelledBy} onClick={onClick}>
      {open && children}
    </dialog>
  );
}
