import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { assertKey, assertPrefix, type ObjectInfo, type Storage } from './storage';

const TEMP = /\.tmp-[0-9a-f]{12}$/;
const missing = (err: unknown) => ['ENOENT', 'ENOTDIR', 'EISDIR'].includes((err as NodeJS.ErrnoException).code ?? '');
const etagOf = (size: number, mtimeMs: number) => `"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`;

/** Uploads in a folder on this machine (UPLOAD_DIR, or STORAGE_URL=file:PATH): the default. */
export function createLocalStorage(dir: string): Storage {
  const root = path.resolve(dir);
  const fileOf = (key: string) => path.join(root, ...assertKey(key).split('/'));

  async function info(file: string): Promise<ObjectInfo | null> {
    try {
      const s = await stat(file);
      return s.isFile() ? { size: s.size, etag: etagOf(s.size, s.mtimeMs) } : null;
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  }

  async function list(prefix: string): Promise<string[]> {
    assertPrefix(prefix);
    const base = path.join(root, ...prefix.split('/').filter(Boolean));
    let entries: string[];
    try {
      entries = (await readdir(base, { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile() && !TEMP.test(e.name))
        .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
    } catch (err) {
      if (missing(err)) return [];
      throw err;
    }
    return entries.sort();
  }

  async function remove(keys: readonly string[]) {
    for (const key of keys) {
      await unlink(fileOf(key)).catch((err) => {
        if (!missing(err)) throw err;
      });
    }
  }

  return {
    description: `folder ${root}`,
    async put(key, body) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      // Written beside, then renamed: a reader never sees half a file.
      const temp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
      try {
        await writeFile(temp, body);
        await rename(temp, file);
      } catch (err) {
        await unlink(temp).catch(() => undefined);
        throw err;
      }
    },
    async get(key) {
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(fileOf(key), 'r');
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
      try {
        const s = await handle.stat();
        if (!s.isFile()) {
          await handle.close();
          return null;
        }
        return { size: s.size, etag: etagOf(s.size, s.mtimeMs), body: handle.createReadStream() };
      } catch (err) {
        await handle.close();
        throw err;
      }
    },
    head: (key) => info(fileOf(key)),
    async read(key) {
      try {
        return await readFile(fileOf(key));
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    delete: remove,
    list,
    async deletePrefix(prefix) {
      const keys = await list(prefix);
      await remove(keys);
      // The emptied folder goes too (only when empty: a concurrent upload keeps it).
      await rmdir(path.join(root, ...prefix.split('/').filter(Boolean))).catch(() => undefined);
      return keys.length;
    },
    async check() {
      await mkdir(root, { recursive: true });
      await access(root, constants.R_OK | constants.W_OK);
    },
    close() {},
  };
}
