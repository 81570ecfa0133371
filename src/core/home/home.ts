// Home page script (small, no framework): fills the hero's member faces and the honest online-now figure.
import type { LanderProfiles } from '../../shared/landers.contract';
import { countText, formsOf } from '../landers/count-text';
import { fillTeasers } from '../landers/teasers';

const root = document.querySelector<HTMLElement>('[data-home]');
if (root) {
  fetch(`/api/lander-profiles.php?${root.dataset.query ?? ''}`, { headers: { Accept: 'application/json' } })
    .then((r) => (r.ok ? (r.json() as Promise<LanderProfiles>) : null))
    .then((data) => {
      if (!data) return;
      fillTeasers(root, data);
      // Nobody online is said by saying nothing.
      const line = root.querySelector<HTMLElement>('[data-home-online]');
      if (line && data.online > 0) {
        line.textContent = countText(formsOf(root.dataset.onlineForms), document.documentElement.lang, data.online);
        line.hidden = false;
      }
    })
    .catch(() => undefined);
}
