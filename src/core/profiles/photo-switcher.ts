// A profile's photos (src/server/pages/bodies/profile-body.ts): a thumbnail shows its photo in the large frame
// instead of leaving the page; the shown one is marked aria-current. Without script a thumbnail links to its photo.

/** Wires the thumbnails under `root`'s large photo; a click with a modifier key still opens the photo itself. */
export function switchPhotos(root: ParentNode): void {
  const main = root.querySelector<HTMLImageElement>('.profile-main');
  const thumbs = [...root.querySelectorAll<HTMLAnchorElement>('a.profile-thumb')];
  if (!main || thumbs.length === 0) return;
  for (const thumb of thumbs) {
    thumb.addEventListener('click', (event) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      main.src = thumb.getAttribute('href') as string;
      for (const other of thumbs) other.setAttribute('aria-current', String(other === thumb));
    });
  }
}
