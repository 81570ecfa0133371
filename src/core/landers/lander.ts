// Lander page script (small, no framework): counts the view, fills the teaser slots with real profiles after the
// first paint, shows the map's region counts, and turns a swipe on the card stack into opening signup.
import type { LanderProfiles } from '../../shared/landers.contract';
import { countText, formsOf } from './count-text';
import { fillTeasers } from './teasers';

const root = document.querySelector<HTMLElement>('[data-lander]');
const locale = document.documentElement.lang;

function fill(root: HTMLElement, data: LanderProfiles) {
  fillTeasers(root, data);
  // "Near you" only for a visitor the server could place, and never "0 members online".
  for (const el of root.querySelectorAll<HTMLElement>('[data-online]')) {
    el.hidden = !data.placed || data.online === 0;
    if (!el.hidden) el.textContent = countText(formsOf(root.dataset.onlineForms), locale, data.online);
  }
  // No member is said by saying nothing, as for the online figure and the map's regions.
  if (data.total > 0) for (const el of root.querySelectorAll('[data-total]')) el.textContent = countText(formsOf(root.dataset.totalForms), locale, data.total);
  if (data.regions) {
    const country = root.querySelector<HTMLElement>(`[data-map-country="${data.country}"]`);
    if (country) {
      for (const other of root.querySelectorAll<HTMLElement>('[data-map-country]')) other.hidden = other !== country;
      const max = Math.max(1, ...Object.values(data.regions));
      for (const region of country.querySelectorAll<SVGGElement>('[data-region]')) {
        const n = data.regions[region.dataset.region as string] ?? 0;
        region.querySelector('[data-bubble]')?.setAttribute('r', String(n ? 6 + Math.round(22 * Math.sqrt(n / max)) : 0));
      }
      const forms = formsOf(root.dataset.membersForms);
      for (const label of country.querySelectorAll<HTMLElement>('[data-region-count]')) {
        const n = data.regions[label.dataset.regionCount as string] ?? 0;
        label.textContent = n ? countText(forms, locale, n) : '';
      }
    }
  }
}

function enableSwipe(stack: HTMLElement) {
  let startX: number | null = null;
  let card: HTMLElement | null = null;
  stack.addEventListener('pointerdown', (event) => {
    card = stack.querySelector<HTMLElement>('.swipe-card-0');
    startX = event.clientX;
  });
  stack.addEventListener('pointermove', (event) => {
    if (startX === null || !card) return;
    const dx = event.clientX - startX;
    card.style.transform = `translateX(${dx}px) rotate(${dx / 20}deg)`;
  });
  const end = (event: PointerEvent) => {
    if (startX === null || !card) return;
    const dx = event.clientX - startX;
    startX = null;
    card.style.transform = '';
    // Any real swipe opens signup, like pressing a button.
    if (Math.abs(dx) > 60) card.querySelector('a')?.click();
  };
  stack.addEventListener('pointerup', end);
  stack.addEventListener('pointercancel', () => { startX = null; if (card) card.style.transform = ''; });
  // A drag must not also follow the card's link.
  stack.addEventListener('dragstart', (event) => event.preventDefault());
}

if (root) {
  const body = JSON.stringify({ lander: root.dataset.lander, slug: root.dataset.slug });
  navigator.sendBeacon?.(`/api/lander-view.php${location.search}`, new Blob([body], { type: 'application/json' }));
  fetch(`/api/lander-profiles.php?${root.dataset.query ?? ''}`, { headers: { Accept: 'application/json' } })
    .then((r) => (r.ok ? (r.json() as Promise<LanderProfiles>) : null))
    .then((data) => { if (data) fill(root, data); })
    .catch(() => undefined);
  const stack = root.querySelector<HTMLElement>('[data-swipe-stack]');
  if (stack) enableSwipe(stack);
}
