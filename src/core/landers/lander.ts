// Lander page script (small, no framework): counts the view, fills the teaser slots with real profiles after the
// first paint, shows the map's region counts, and turns a swipe on the card stack into opening signup.
import type { LanderProfiles } from '../../shared/landers.contract';

const root = document.querySelector<HTMLElement>('[data-lander]');

function fillText(template: string | undefined, n: number): string {
  return (template ?? '').replace('{n}', n.toLocaleString(document.documentElement.lang));
}

function fill(root: HTMLElement, data: LanderProfiles) {
  const slots = root.querySelectorAll<HTMLElement>('[data-teaser]');
  data.profiles.forEach((p, i) => {
    const slot = slots[i];
    if (!slot) return;
    const img = slot.querySelector<HTMLImageElement>('[data-teaser-img]');
    if (img && p.thumb) img.src = `/uploads/${p.thumb}`;
    const name = slot.querySelector('[data-teaser-name]');
    if (name) name.textContent = `${p.name}, ${p.age}`;
    const meta = slot.querySelector('[data-teaser-meta]');
    if (meta) meta.textContent = p.city ?? p.region ?? p.country;
    const fictional = slot.querySelector<HTMLElement>('[data-teaser-fictional]');
    if (fictional) fictional.hidden = !p.fictional;
    // The teaser opens signup aimed at that member.
    const link = slot.querySelector<HTMLAnchorElement>('a');
    if (link) {
      link.dataset.target = String(p.id);
      link.dataset.targetName = p.name;
    }
  });
  for (const el of root.querySelectorAll('[data-online]')) el.textContent = fillText(root.dataset.onlineText, data.online);
  for (const el of root.querySelectorAll('[data-total]')) el.textContent = fillText(root.dataset.totalText, data.total);
  if (data.regions) {
    const country = root.querySelector<HTMLElement>(`[data-map-country="${data.country}"]`);
    if (country) {
      for (const other of root.querySelectorAll<HTMLElement>('[data-map-country]')) other.hidden = other !== country;
      const max = Math.max(1, ...Object.values(data.regions));
      for (const region of country.querySelectorAll<SVGGElement>('[data-region]')) {
        const n = data.regions[region.dataset.region as string] ?? 0;
        region.querySelector('[data-bubble]')?.setAttribute('r', String(6 + Math.round(30 * Math.sqrt(n / max))));
      }
      for (const label of country.querySelectorAll<HTMLElement>('[data-region-count]')) {
        label.textContent = fillText(root.dataset.membersText, data.regions[label.dataset.regionCount as string] ?? 0);
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
