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
