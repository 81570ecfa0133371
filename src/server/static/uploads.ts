import { createReadStream, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { NON_HTML_CSP } from '../security-headers';

const TYPES: Record<string, string> = { '.webp': 'image/webp', '.jpg': 'image/jpeg', '.png': 'image/png', '.svg': 'image/svg+xml' };

/** Serves member photos and avatars from the upload directory; names are unique, so they cache long. */
export function createUploadHandler(uploadDir: string) {
  const root = path.resolve(uploadDir);
  return (req: IncomingMessage, res: ServerResponse) => {
    const notFound = () => {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
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
      'Cache-Control': 'public, max-age=86400',
      // An SVG opened directly must not run script.
      'Content-Security-Policy': NON_HTML_CSP,
    });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file).pipe(res);
  };
}
