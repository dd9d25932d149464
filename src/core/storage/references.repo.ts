// Which storage keys rows point at: the storage sweep deletes only objects no row names.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/**
 * Every column that holds a storage key. A new column that stores a key must be added here (and indexed), or the
 * sweep would delete its objects; test/storage/sweep.test.ts fails when a `*_key` column is in neither list.
 */
export const STORAGE_KEY_COLUMNS = [
  ['users', 'image_key'],
  ['users', 'banner_key'],
  ['teams', 'logo_key'],
  ['teams', 'banner_key'],
  ['resources', 'icon_key'],
  ['resources', 'banner_key'],
  ['servers', 'logo_key'],
  ['servers', 'banner_key'],
  ['version_files', 'storage_key'],
  ['gallery_images', 'storage_key'],
  ['gallery_images', 'thumbnail_key'],
  ['description_images', 'storage_key'],
] as const satisfies readonly (readonly [keyof DB, string])[];

/** `*_key` columns that are not storage keys (case-folded names, download dedup keys, job names…). */
export const NON_STORAGE_KEY_COLUMNS = [
  ['users', 'username_key'],
  ['resources', 'name_key'],
  ['resource_tag_links', 'resource_name_key'],
  ['download_events', 'client_key'],
  ['server_votes', 'client_key'],
] as const;

/** The subset of `keys` that some row holds: one query, whatever the number of columns. */
export async function referencedKeys(db: Kysely<DB>, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const selects = STORAGE_KEY_COLUMNS.map(
    ([table, column]) =>
      sql<{
        key: string;
      }>`select ${sql.ref(column)} as key from ${sql.table(table)} where ${sql.ref(column)} in (${sql.join(keys)})`,
  );
  const { rows } = await sql<{ key: string }>`${sql.join(selects, sql` union `)}`.execute(db);
  return new Set(rows.map((row) => row.key));
}
