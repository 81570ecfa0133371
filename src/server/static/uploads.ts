import { findStaff } from '../admin/staff.service';
import { can } from '../../shared/admin.contract';
import { createReadStream, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { memberForSession } from '../accounts/accounts.service';
import { AUTH_COOKIE } from '../api/session';
import type { AppContext } from '../app-context';
import { createRequestContext, cookieValue } from '../context/request-context';
import { photoFileOwner } from '../photos/photos.service';
import { NON_HTML_CSP } from '../security-headers';

const TYPES: Record<string, string> = { '.webp': 'image/webp', '.jpg': 'image/jpeg', '.png': 'image/png', '.svg': 'image/svg+xml' };
/** Approved photos and generated avatars: names are unique, so they cache long. */
const PUBLIC_CACHE = 'public, max-age=86400';
/** Photos under inspection: never kept by a shared cache, nor after the member leaves. */
const PRIVATE_CACHE = 'private, no-store';

/**
 * Serves files from the upload directory, deciding from the database who may see each one:
 * generated avatars and approved ('active') photos are public; a photo under inspection goes only
 * to its owner and to staff of the same site (second factor passed, moderation or member rights); rejected photos and anything else (chat images are
 * served only through the member-checked /api/chat-image.php) answer 404.
 */
export function createUploadHandler(app: AppContext) {
  const root = path.resolve(app.config.uploadDir);
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
    let rel: string;
    try {
      rel = decodeURIComponent((req.url ?? '').split('?')[0].slice('/uploads/'.length));
    } catch {
      return notFound();
    }
    const file = path.resolve(root, rel);
    const type = TYPES[path.extname(file)];
    if (!file.startsWith(root + path.sep) || !type || rel.includes('\0')) return notFound();
    const name = path.relative(root, file).split(path.sep).join('/');
    access(req, name)
      .then((visibility) => {
        if (!visibility) return notFound();
        let size: number;
        try {
          const stat = statSync(file);
          if (!stat.isFile()) return notFound();
          size = stat.size;
        } catch {
          return notFound();
        }
        res.writeHead(200, {
          'Content-Type': type,
          'Content-Length': size,
          'Cache-Control': visibility === 'public' ? PUBLIC_CACHE : PRIVATE_CACHE,
          // An SVG opened directly must not run script.
          'Content-Security-Policy': NON_HTML_CSP,
        });
        if (req.method === 'HEAD') return void res.end();
        createReadStream(file).pipe(res);
      })
      .catch((err) => {
        app.logger.error({ err, url: req.url }, 'upload access check failed');
        if (res.headersSent) return void res.end();
        res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end('Unavailable');
      });
  };
}
