import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DB, ResourceExternalLinksTable } from '../../../core/db/schema.js';

export type ExternalLinkRow = Selectable<ResourceExternalLinksTable>;
type Executor = Kysely<DB> | Transaction<DB>;

export const listLinks = (db: Executor, resourceId: string): Promise<ExternalLinkRow[]> =>
  db
    .selectFrom('resource_external_links')
    .selectAll()
    .where('resource_id', '=', resourceId)
    .orderBy('position')
    .orderBy('id')
    .execute();

export async function insertLink(db: Executor, row: ExternalLinkRow): Promise<void> {
  await db.insertInto('resource_external_links').values(row).execute();
}

export async function updateLink(
  db: Executor,
  id: string,
  patch: Partial<Pick<ExternalLinkRow, 'title' | 'url' | 'position' | 'updated_at'>>,
): Promise<void> {
  await db.updateTable('resource_external_links').set(patch).where('id', '=', id).execute();
}

export async function deleteLink(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('resource_external_links').where('id', '=', id).execute();
}
