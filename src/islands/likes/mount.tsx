import { createRoot } from 'react-dom/client';
import type { MemberShellData } from '../../core/members/shell-data';
import { LikeModals } from './LikeModals';

/** Mounts the like and match modals (loaded the first time one has something to show). */
export function mountLikeModals(container: HTMLElement, data: MemberShellData) {
  createRoot(container).render(<LikeModals {...data} />);
}
