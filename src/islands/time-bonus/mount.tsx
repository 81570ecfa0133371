import { createRoot } from 'react-dom/client';
import type { IslandI18n } from '../shared/i18n';
import { TimeBonus } from './TimeBonus';

/** Mounts the time-bonus banner (top of the warning banners) and its popup (modal root). */
export function mountTimeBonus(bannerRoot: HTMLElement, modalRoot: HTMLElement, i18n: IslandI18n) {
  createRoot(bannerRoot).render(<TimeBonus {...i18n} modalRoot={modalRoot} />);
}
