import { describe, expect, it, vi } from 'vitest';
import { fillCount, renderAppBadge, renderBadge, renderCreditsNav, renderTitle } from '../../src/core/members/shell';

/** Just enough of a DOM element for the badge code. */
function fakeLink() {
  const children: FakeEl[] = [];
  type FakeEl = { className: string; dataset: Record<string, string>; textContent: string; attrs: Record<string, string>; setAttribute(k: string, v: string): void; remove(): void };
  const link = {
    children,
    ownerDocument: {
      createElement: (): FakeEl => {
        const el: FakeEl = {
          className: '', dataset: {}, textContent: '', attrs: {},
          setAttribute(k, v) { el.attrs[k] = v; },
          remove() { children.splice(children.indexOf(el), 1); },
        };
        return el;
      },
    },
    append: (el: FakeEl) => children.push(el),
    querySelector: (sel: string) => children.find((c) => sel.includes(`"${c.dataset.badge}"`)) ?? null,
  };
  return link;
}

describe('members shell', () => {
  it('creates, updates (99+ cap) and removes the nav badge', () => {
    const link = fakeLink();
    renderBadge(link as never, 'unread', 3, '{{count}} unread messages');
    expect(link.children.map((c) => [c.className, c.textContent, c.attrs['aria-label']])).toEqual([['badge', '3', '3 unread messages']]);
    renderBadge(link as never, 'unread', 120, '{{count}} unread messages');
    expect(link.children.map((c) => c.textContent)).toEqual(['99+']);
    renderBadge(link as never, 'unread', 0, '{{count}} unread messages');
    expect(link.children).toEqual([]);
  });

  it('puts the count in the title and on the app badge', () => {
    const doc = { title: 'Messages · Kindred' };
    renderTitle(doc, 4);
    expect(doc.title).toBe('(4) Messages · Kindred');
    renderTitle(doc, 0);
    expect(doc.title).toBe('Messages · Kindred');
    const nav = { setAppBadge: vi.fn(async () => undefined), clearAppBadge: vi.fn(async () => undefined) };
    renderAppBadge(nav, 5);
    renderAppBadge(nav, 0);
    expect(nav.setAppBadge).toHaveBeenCalledWith(5);
    expect(nav.clearAppBadge).toHaveBeenCalledOnce();
    expect(() => renderAppBadge({}, 2)).not.toThrow();
    expect(fillCount('{{ count }} new', 2)).toBe('2 new');
  });

  it('shows the credits link with its badge for paid members and Get Premium for free ones, live', () => {
    const link = Object.assign(fakeLink(), { hidden: true });
    const premium = { hidden: false };
    const labels = { low: 'Only {{count}} credits left', none: 'You have no credits left' };
    const badge = () => link.children.map((c) => [c.className, c.textContent, c.attrs['aria-label']]);
    renderCreditsNav(link as never, premium, { credits: 0, paid_user: false }, labels);
    expect([link.hidden, premium.hidden]).toEqual([true, false]);
    // A first purchase: credits instead of Get Premium, no badge above 10 credits.
    renderCreditsNav(link as never, premium, { credits: 270, paid_user: true }, labels);
    expect([link.hidden, premium.hidden]).toEqual([false, true]);
    expect(badge()).toEqual([]);
    renderCreditsNav(link as never, premium, { credits: 10, paid_user: true }, labels);
    expect(badge()).toEqual([['badge badge-warning', '10', 'Only 10 credits left']]);
    renderCreditsNav(link as never, premium, { credits: 0, paid_user: true }, labels);
    expect(badge()).toEqual([['badge badge-danger', '0', 'You have no credits left']]);
    renderCreditsNav(link as never, premium, { credits: 11, paid_user: true }, labels);
    expect(badge()).toEqual([]);
  });
});
