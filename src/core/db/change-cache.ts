// Values kept until a version number moves. Mostly values read from the database, kept until anything in it
// changes (core/db/sqlite-reads.ts `changes()`: at once after this process's commits, within a millisecond after
// another process's): whatever changed, every entry is then read again on its next use, so a kept value is never
// older than the last change. Without a version (PostgreSQL, an in-memory database) nothing is kept. Only values
// the database alone decides may be kept that way: not ones that depend on the caller (unless the key names the
// caller) or on the clock. The signed-link memo uses the current second as its version.
import { setBounded } from '../bounded-map.js';

/** Bounds memory: entries are small (a row, a rendered answer of a few KB). */
const MAX_ENTRIES = 2_000;

interface Entry<T> {
  version: number;
  value: T;
}

export type ChangeCache<T> = ReturnType<typeof createChangeCache<T>>;

export function createChangeCache<T>(deps: { changes: (() => number) | undefined; maxEntries?: number }) {
  const { changes } = deps;
  const maxEntries = deps.maxEntries ?? MAX_ENTRIES;
  const entries = new Map<string, Entry<T>>();

  return {
    /**
     * The value for `key`: kept while the database has not changed, otherwise produced again. The version is read
     * before producing, so an entry is never older than the version it is filed under.
     */
    async get(key: string, produce: () => Promise<T>): Promise<T> {
      if (changes === undefined) return produce();
      const version = changes();
      const entry = entries.get(key);
      if (entry !== undefined && entry.version === version) return entry.value;
      const value = await produce();
      setBounded(entries, key, { version, value }, maxEntries);
      return value;
    },

    size: () => entries.size,
  };
}
