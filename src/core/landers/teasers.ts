// Fills a page's teaser slots (src/components/landers/Teaser.astro) with real profiles: the landers and the home pages.
import type { LanderProfiles } from '../../shared/landers.contract';

/** Puts each profile into its slot; slots left over (fewer members than slots) are hidden rather than left blank. */
export function fillTeasers(root: ParentNode, data: Pick<LanderProfiles, 'profiles' | 'online_ids'>) {
  const online = new Set(data.online_ids ?? []);
  root.querySelectorAll<HTMLElement>('[data-teaser]').forEach((slot, i) => {
    const p = data.profiles[i];
    if (!p) {
      slot.hidden = true;
      return;
    }
    const img = slot.querySelector<HTMLImageElement>('[data-teaser-img]');
    if (img && p.thumb) img.src = `/uploads/${p.thumb}`;
    const name = slot.querySelector('[data-teaser-name]');
    if (name) {
      // A long name gives way (ellipsis), the age never does. The comma is its own span so that a narrow
      // card can put the age under the name instead (--teaser-caption: column in Teaser.astro).
      const given = document.createElement('span');
      given.className = 'teaser-given';
      given.textContent = p.name;
      const comma = document.createElement('span');
      comma.className = 'teaser-comma';
      comma.textContent = ', ';
      name.replaceChildren(given, comma, String(p.age));
    }
    const meta = slot.querySelector('[data-teaser-meta]');
    if (meta) meta.textContent = p.city ?? p.region ?? p.country;
    const fictional = slot.querySelector<HTMLElement>('[data-teaser-fictional]');
    if (fictional) fictional.hidden = !p.fictional;
    const dot = slot.querySelector<HTMLElement>('[data-teaser-online]');
    if (dot) dot.hidden = !online.has(p.id);
    // The teaser opens signup aimed at that member.
    const link = slot.querySelector<HTMLAnchorElement>('a');
    if (link) {
      link.dataset.target = String(p.id);
      link.dataset.targetName = p.name;
    }
  });
}
