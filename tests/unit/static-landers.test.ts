import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSites, SiteRegistry } from '../../src/server/sites/site-registry';
import { StaticLayer } from '../../src/server/static/static-layer';

const layer = new StaticLayer('/nonexistent', new SiteRegistry(loadSites()));
const resolve = (path: string, host = 'gay.localhost', cookie?: string) => layer.resolvePath(path, host, cookie, undefined);

describe('static layer: landers and {token} pages', () => {
  it('maps lander URLs onto the prerendered file of the site × locale × slug', () => {
    expect(resolve('/landers/gallery')).toEqual({ file: '/pages/maennerhafen/de/landers/gallery/default/index.html', negotiated: true });
    expect(resolve('/landers/socialnetwork/men/', 'gay.localhost', 'lang=fr')).toEqual({ file: '/pages/maennerhafen/fr/landers/socialnetwork/men/index.html', negotiated: true });
    expect(resolve('/nl/landers/video')).toEqual({ file: '/pages/maennerhafen/nl/landers/video/default/index.html', negotiated: false });
    expect(resolve('/de/landers/video/og.png')).toEqual({ file: '/pages/maennerhafen/de/landers/video/default/og.png', negotiated: false });
  });

  it('leaves unknown types, bad slugs and deeper paths to the 404 page', () => {
    for (const path of ['/landers/nope', '/landers/gallery/Bad_Slug', '/landers/gallery/a/b', '/xx/landers/gallery']) expect(resolve(path), path).toBeNull();
  });

  it('maps editor-defined tokens like spec pages; odd tokens are not pages', () => {
    expect(resolve('/safety')?.file).toBe('/pages/maennerhafen/de/safety/index.html');
    expect(resolve('/it/safety')?.file).toBe('/pages/maennerhafen/it/safety/index.html');
    expect(resolve('/Safety')).toBeNull();
    expect(resolve('/a.b')).toBeNull();
  });
});

describe('static layer: the site\'s own files', () => {
  it('serves each site its manifest and app icons, also to a member (a session cookie does not bypass them)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'static-'));
    for (const [site, body] of [['kindred', 'K'], ['maennerhafen', 'M']]) {
      mkdirSync(path.join(dir, 'pages', site), { recursive: true });
      for (const file of ['manifest.webmanifest', 'apple-touch-icon.png', 'icon-maskable-512.png']) writeFileSync(path.join(dir, 'pages', site, file), `${body}:${file}`);
    }
    const files = new StaticLayer(dir, new SiteRegistry(loadSites()));
    files.load();
    const get = (url: string, host: string, cookie?: string) => {
      const res = { status: 0, body: '', writeHead(status: number) { this.status = status; }, end(body?: Buffer) { this.body = body?.toString() ?? ''; } };
      const handled = files.handle({ method: 'GET', url, headers: { host, cookie } } as never, res as never);
      return handled ? res.body : null;
    };
    expect(get('/apple-touch-icon.png', 'gay.localhost')).toBe('M:apple-touch-icon.png');
    expect(get('/icon-maskable-512.png', 'localhost', 'kd_session=abc')).toBe('K:icon-maskable-512.png');
    expect(get('/manifest.webmanifest', 'gay.localhost', 'kd_session=abc')).toBe('M:manifest.webmanifest');
    rmSync(dir, { recursive: true, force: true });
  });
});
