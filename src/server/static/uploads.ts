import { findStaff } from '../admin/staff.service';
import { can } from '../../shared/admin.contract';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { memberForSession } from '../accounts/accounts.service';
import { AUTH_COOKIE } from '../api/session';
import type { AppContext } from '../app-context';
import { createRequestContext, cookieValue } from '../context/request-context';
import { photoFileOwner } from '../photos/photos.service';
import { NON_HTML_CSP } from '../security-headers';
import { imageTypeOf, isStorageKey } from '../storage/storage';

/**
 * Approved photos and generated avatars. A name is random and never reused for other bytes, so a
 * copy never goes stale (immutable: no revalidation); a day, not a year, so that a photo its member
 * deleted leaves browser and CDN caches within a day.
 */
const PUBLIC_CACHE = 'public, max-age=86400, immutable';
/** Photos under inspection: never kept by a shared cache, nor after the member leaves. */
const PRIVATE_CACHE = 'private, no-store';

/**
 * Serves uploads from the store (local folder or S3 bucket, src/server/storage), deciding from the
 * database who may see each one: generated avatars and approved ('active') photos are public; a
 * photo under inspection goes only to its owner and to staff of the same site (second factor
 * passed, moderation or member rights); rejected photos and anything else (chat images are served
 * only through the member-checked /api/chat-image.php) answer 404. The store is never exposed:
 * every byte goes through this check (docs/operations.md, "Storage").
 */
export function createUploadHandler(app: AppContext) {
  const accounts = { app, mailer: app.mailer, limits: app.limits };

  /** 'public', 'private' or null (not served), from the one row that owns the file name. */
  async function access(req: IncomingMessage, rel: string): Promise<'public' | 'private' | null> {
    if (/^avatars\/[^/]+\.svg$/.test(rel)) return 'public';
    if (!rel.startsWith('photos/')) return null;
    const owner = await photoFileOwner(app.db.db, rel);
    if (!owner || owner.status === 'rejected') return null;
    if (owner.status === 'active') return 'public';
    // Sessions belong to their site: only the site of the photo (by Host) can know its owner or staff.
    const { site } = createRequestContext(
      app.sites,
      { headers: req.headers, remoteAddress: req.socket.remoteAddress, encrypted: Boolean((req.socket as { encrypted?: boolean }).encrypted) },
      app.config,
    );
    if (site.id !== owner.site_id) return null;
    const token = cookieValue(req.headers.cookie, AUTH_COOKIE);
    const member = await memberForSession(accounts, site, token);
    if (!member) return null;
    if (owner.user_id !== null && member.user.id === owner.user_id) return 'private';
    if (member.user.role !== 'staff' || member.user.site_id !== owner.site_id) return null;
    // Staff who passed the second factor on this session, in a role that looks at members' photos.
    const staff = await findStaff(app, site, member.user, token ?? null, null);
    return staff?.verified && (can(staff.role, 'moderation') || can(staff.role, 'members')) ? 'private' : null;
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    const notFound = () => {
      if (res.headersSent) return void res.end();
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end('Not found');
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return notFound();
    let name: string;
    try {
      name = decodeURIComponent((req.url ?? '').split('?')[0].slice('/uploads/'.length));
    } catch {
      return notFound();
    }
    const type = imageTypeOf(name);
    // Only names the app could have stored: no '..', no empty or hidden segments, known image types.
    if (!type || !isStorageKey(name)) return notFound();
    access(req, name)
      .then(async (visibility) => {
        if (!visibility) return notFound();
        const headers = (etag: string) => ({
          'Cache-Control': visibility === 'public' ? PUBLIC_CACHE : PRIVATE_CACHE,
          ETag: etag,
          // An SVG opened directly must not run script.
          'Content-Security-Policy': NON_HTML_CSP,
        });
        const conditional = req.headers['if-none-match'];
        if (req.method === 'HEAD' || conditional) {
          // Length and ETag only (one HEAD on S3): a revalidation sends no body.
          const info = await app.storage.head(name);
          if (!info) return notFound();
          if (conditional?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === info.etag)) {
            res.writeHead(304, headers(info.etag));
            return void res.end();
          }
          if (req.method === 'HEAD') {
            res.writeHead(200, { 'Content-Type': type, 'Content-Length': info.size, ...headers(info.etag) });
            return void res.end();
          }
        }
        const object = await app.storage.get(name);
        if (!object) return notFound();
        res.writeHead(200, { 'Content-Type': type, 'Content-Length': object.size, ...headers(object.etag) });
        // A client that goes away ends the store's stream too (no socket to S3 left open).
        await pipeline(object.body, res).catch(() => undefined);
      })
      .catch((err) => {
        app.logger.error({ err, url: req.url }, 'upload access check failed');
        if (res.headersSent) return void res.end();
        res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end('Unavailable');
      });
  };
}
