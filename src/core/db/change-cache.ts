// Values kept until a version number moves. Mostly values read from the database, kept until anything in it
// changes (Database.changes: on SQLite core/db/sqlite-reads.ts, at once after this process's commits, within a
// millisecond after another process's; on PostgreSQL core/db/pg-change-signal.ts, a fence that sees every commit
// made before the request arrived, by any process): whatever changed, every entry is then read again on its next
// use, so a kept value is never older than the last change. Without a signal (an in-memory database) nothing is
// kept. Only values the database alone decides may be kept that way: not ones that depend on the caller (unless
// the key names the caller) or on the clock. The signed-link memo uses the current second as its version.
import { setBounded } from '../bounded-map.js';

/**
 * A number that moves whenever what is kept may have changed. Synchronous where it can be (SQLite: no promise
 * hop on the hot path), a promise where it needs a round trip (PostgreSQL).
 */
export type ChangeSignal = () => number | Promise<number>;

/**
 * The change signal of each open database, for code that is handed only `db` (database.ts registers it). A
 * transaction is a different object and finds none: inside one, nothing is kept (it must see its own writes).
 */
const signals = new WeakMap<object, ChangeSignal>();

export function registerChangeSignal(db: object, changes: ChangeSignal): void {
  signals.set(db, changes);
}

export const changeSignalOf = (db: object): ChangeSignal | undefined => signals.get(db);

/** Bounds memory: entries are small (a row, a rendered answer of a few KB). */
const MAX_ENTRIES = 2_000;

interface Entry<T> {
  version: number;
  value: T;
}

export type ChangeCache<T> = ReturnType<typeof createChangeCache<T>>;

export function createChangeCache<T>(deps: { changes: ChangeSignal | undefined; maxEntries?: number }) {
  const { changes } = deps;
  const maxEntries = deps.maxEntries ?? MAX_ENTRIES;
  const entries = new Map<string, Entry<T>>();
  // One production in flight per key: concurrent misses (a burst of requests right after a change) wait for it
  // instead of each querying and rendering again. Shared only with callers of the same version: a production
  // started under version v read the database after v was observed, which is exactly what an entry filed under
  // v promises to a caller that observed v.
  const producing = new Map<string, Entry<Promise<T>>>();

  function lookup(key: string, version: number, produce: () => Promise<T>): Promise<T> {
    const entry = entries.get(key);
    if (entry !== undefined && entry.version === version) return Promise.resolve(entry.value);
    const running = producing.get(key);
    if (running !== undefined && running.version === version) return running.value;
    let started: Promise<T>;
    try {
      started = produce();
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const slot = { version, value: started };
    const done = () => {
      if (producing.get(key) === slot) producing.delete(key);
    };
    slot.value = slot.value.then(
      (produced) => {
        done();
        // A slower production of an older version must not replace a newer entry.
        const current = entries.get(key);
        if (current === undefined || current.version <= version) {
          setBounded(entries, key, { version, value: produced }, maxEntries);
        }
        return produced;
      },
      (error: unknown) => {
        done();
        throw error;
      },
    );
    producing.set(key, slot);
    return slot.value;
  }

  return {
    /**
     * The value for `key`: kept while the database has not changed, otherwise produced again. The version is read
     * before producing, so an entry is never older than the version it is filed under.
     */
    get(key: string, produce: () => Promise<T>): Promise<T> {
      if (changes === undefined) return produce();
      const version = changes();
      if (typeof version === 'number') return lookup(key, version, produce);
      return version.then((observed) => lookup(key, observed, produce));
    },

    size: () => entries.size,
  };
}
