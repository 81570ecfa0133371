import { createRoot } from 'react-dom/client';
import type { IslandI18n } from '../shared/i18n';
import { TimeBonus } from './TimeBonus';

/** Mounts the time-bonus popup into the modal root. */
export function mountTimeBonus(modalRoot: HTMLElement, i18n: IslandI18n) {
  createRoot(modalRoot).render(<TimeBonus {...i18n} />);
}
