// Every storage key a row holds now, read straight from the tables the storage sweep honours (backup and sweep
// tests compare stored objects against it).
import type { App } from '../../src/app.js';
import { STORAGE_KEY_COLUMNS } from '../../src/core/storage/references.repo.js';

export async function keysInRows(app: App): Promise<string[]> {
  const { db } = app.context.database;
  const keys: string[] = [];
  for (const [table, column] of STORAGE_KEY_COLUMNS) {
    const rows = await db
      .selectFrom(table as 'users')
      .select(column as 'image_key')
      .where(column as 'image_key', 'is not', null)
      .execute();
    keys.push(...rows.map((row) => (row as Record<string, string>)[column]!));
  }
  return keys;
}
