// Local-disk driver. Objects live under <rootDir>/objects/<key>; each object's content type lives in a
// mirror tree <rootDir>/meta/<key> so no object key can ever collide with a metadata file.
import { randomUUID } from 'node:crypto';
import { createWriteStream, constants as fsConstants } from 'node:fs';
import {
  access,
  mkdir,
  open,
  opendir,
  readFile,
  rename,
  rm,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../clock.js';
import { assertValidKey, isPrivateKey, PRIVATE_PREFIX } from './keys.js';
import { signUrl } from './signed-urls.js';
import type {
  ByteRange,
  ListedObject,
  ObjectInfo,
  ObjectStream,
  PutOptions,
  Storage,
  StoredObject,
} from './storage.js';

export interface LocalStorageOptions {
  rootDir: string;
  /** Base URL the /cdn route is reachable at, without a trailing slash. */
  cdnUrl: string;
  /** Signs download URLs; must be the secret the /cdn route verifies with. */
  secret: string;
  /** Signed-URL expiry is computed from this clock, so tests that move time stay consistent. */
  clock?: Clock;
}

interface MetaFile {
  contentType: string;
}

const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

/** Errors meaning "there is no object here", including a key whose parent is a file. */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A put in progress writes `.<name>.<uuid>.tmp` beside its target; a crash leaves it there. */
const TEMP_FILE = /^\..+\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;

function assertFolderPrefix(prefix: string): void {
  if (!prefix.endsWith('/')) throw new Error(`A listing prefix must end with '/': ${JSON.stringify(prefix)}`);
  assertValidKey(prefix.slice(0, -1));
}

/** Every file under `dir`, depth first, as `<prefix><relative path>`; directories are read lazily. */
async function* walkFiles(
  dir: string,
  prefix: string,
): AsyncGenerator<{ key: string; path: string; name: string }> {
  let entries;
  try {
    entries = await opendir(dir);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  for await (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walkFiles(path, `${prefix}${entry.name}/`);
    else if (entry.isFile()) yield { key: `${prefix}${entry.name}`, path, name: entry.name };
  }
}

/** Clamps the end to the object; a start beyond it is the caller's bug, as S3 also rejects it. */
export function clampRange(range: ByteRange, size: number): ByteRange {
  const end = Math.min(range.end, size - 1);
  if (!Number.isSafeInteger(range.start) || range.start < 0 || range.start > end) {
    throw new RangeError(`Range ${range.start}-${range.end} is not satisfiable for ${size} bytes`);
  }
  return { start: range.start, end };
}

export function createLocalStorage({ rootDir, cdnUrl, secret, clock }: LocalStorageOptions): Storage {
  const objectsDir = join(rootDir, 'objects');
  const metaDir = join(rootDir, 'meta');
  const baseUrl = cdnUrl.replace(/\/+$/, '');

  const objectPath = (key: string) => join(objectsDir, ...key.split('/'));
  const metaPath = (key: string) => join(metaDir, ...key.split('/'));

  // Same directory as the target, so the final rename never crosses a filesystem and is atomic.
  const tempPathFor = (target: string) => join(dirname(target), `.${basename(target)}.${randomUUID()}.tmp`);

  async function readContentType(key: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(metaPath(key), 'utf8')) as Partial<MetaFile>;
      return typeof meta.contentType === 'string' ? meta.contentType : FALLBACK_CONTENT_TYPE;
    } catch (error) {
      if (isMissing(error)) return FALLBACK_CONTENT_TYPE;
      throw error;
    }
  }

  async function openObject(key: string): Promise<{ handle: FileHandle; size: number } | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(objectPath(key), 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      // fstat on the open handle: size and bytes then come from the same file even if a concurrent
      // put renames a new version into place.
      const info = await handle.stat();
      if (!info.isFile()) {
        await handle.close();
        return undefined;
      }
      return { handle, size: info.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  return {
    driver: 'local',

    async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<StoredObject> {
      assertValidKey(key);
      const target = objectPath(key);
      const metaTarget = metaPath(key);
      await Promise.all([
        mkdir(dirname(target), { recursive: true }),
        mkdir(dirname(metaTarget), { recursive: true }),
      ]);
      const temp = tempPathFor(target);
      const metaTemp = tempPathFor(metaTarget);
      try {
        if (Buffer.isBuffer(body)) {
          await writeFile(temp, body, { flag: 'wx', flush: true });
        } else {
          await pipeline(body, createWriteStream(temp, { flags: 'wx', flush: true }));
        }
        const { size } = await stat(temp);
        const meta: MetaFile = { contentType: options.contentType };
        await writeFile(metaTemp, JSON.stringify(meta), { flag: 'wx', flush: true });
        // Metadata first: once the object is visible, its content type already is.
        await rename(metaTemp, metaTarget);
        await rename(temp, target);
        return { key, size };
      } catch (error) {
        await Promise.all([rm(temp, { force: true }), rm(metaTemp, { force: true })]);
        throw error;
      }
    },

    async get(key: string, range?: ByteRange): Promise<ObjectStream | undefined> {
      assertValidKey(key);
      const opened = await openObject(key);
      if (opened === undefined) return undefined;
      const { handle, size } = opened;
      try {
        const contentType = await readContentType(key);
        const bounds = range === undefined ? undefined : clampRange(range, size);
        // autoClose (the default) releases the handle when the stream ends or is destroyed.
        const body = handle.createReadStream(bounds ?? {});
        return { body, size, contentType };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },

    async head(key: string): Promise<ObjectInfo | undefined> {
      assertValidKey(key);
      try {
        const info = await stat(objectPath(key));
        if (!info.isFile()) return undefined;
        return { size: info.size, contentType: await readContentType(key), lastModified: info.mtime };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async delete(key: string): Promise<void> {
      assertValidKey(key);
      // Empty parent directories are left behind on purpose: removing them would race with a
      // concurrent put that has just created the directory and is about to write into it.
      for (const path of [objectPath(key), metaPath(key)]) {
        try {
          await unlink(path);
        } catch (error) {
          if (!isMissing(error)) throw error;
        }
      }
    },

    publicUrl(key: string): string {
      assertValidKey(key);
      return `${baseUrl}/${key}`;
    },

    async signedUrl(key, { expiresIn, downloadName }): Promise<string> {
      if (!isPrivateKey(key))
        throw new Error(`Signed URLs are only for keys under ${PRIVATE_PREFIX}: ${key}`);
      const now = (clock?.now() ?? new Date()).getTime();
      const expiresAt = Math.floor(now / 1000) + Math.ceil(expiresIn);
      return signUrl({ cdnUrl: baseUrl, key, downloadName, expiresAt, secret });
    },

    async ping(): Promise<void> {
      await mkdir(rootDir, { recursive: true });
      await access(rootDir, fsConstants.W_OK);
    },

    async *list({ prefix, pageSize }): AsyncGenerator<ListedObject[]> {
      assertFolderPrefix(prefix);
      let page: ListedObject[] = [];
      for await (const file of walkFiles(objectPath(prefix.slice(0, -1)), prefix)) {
        if (TEMP_FILE.test(file.name)) continue;
        let info;
        try {
          info = await stat(file.path);
        } catch (error) {
          // Deleted between the directory read and the stat.
          if (isMissing(error)) continue;
          throw error;
        }
        page.push({ key: file.key, size: info.size, lastModified: info.mtime });
        if (page.length >= pageSize) {
          yield page;
          page = [];
        }
      }
      if (page.length > 0) yield page;
    },

    async abortIncompleteUploads({ prefix, startedBefore }): Promise<number> {
      assertFolderPrefix(prefix);
      let removed = 0;
      for (const tree of [objectPath(prefix.slice(0, -1)), metaPath(prefix.slice(0, -1))]) {
        for await (const file of walkFiles(tree, prefix)) {
          if (!TEMP_FILE.test(file.name)) continue;
          try {
            if ((await stat(file.path)).mtime >= startedBefore) continue;
            await unlink(file.path);
            removed += 1;
          } catch (error) {
            if (!isMissing(error)) throw error;
          }
        }
      }
      return removed;
    },
  };
}
