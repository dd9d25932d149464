import type { Kysely, Transaction } from 'kysely';
import type { DB, SocialLinksTable } from '../../core/db/schema.js';

export type SocialLinkRow = SocialLinksTable;
export type SocialLinkOwnerType = 'USER' | 'TEAM' | 'SERVER';
type Executor = Kysely<DB> | Transaction<DB>;

export function listLinks(
  db: Executor,
  ownerType: SocialLinkOwnerType,
  ownerId: string,
): Promise<SocialLinkRow[]> {
  return db
    .selectFrom('social_links')
    .selectAll()
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .orderBy('position')
    .execute();
}

/** Links of many owners in one query (for lists and profiles). */
export function listLinksOfOwners(
  db: Executor,
  ownerType: SocialLinkOwnerType,
  ownerIds: readonly string[],
): Promise<SocialLinkRow[]> {
  if (ownerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('social_links')
    .selectAll()
    .where('owner_type', '=', ownerType)
    .where('owner_id', 'in', ownerIds)
    .orderBy('owner_id')
    .orderBy('position')
    .execute();
}

export async function insertLink(db: Executor, row: SocialLinkRow): Promise<void> {
  await db.insertInto('social_links').values(row).execute();
}

export async function updateLink(
  db: Executor,
  id: string,
  patch: Partial<Pick<SocialLinkRow, 'platform' | 'url' | 'position'>>,
): Promise<void> {
  await db.updateTable('social_links').set(patch).where('id', '=', id).execute();
}

export async function deleteLink(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('social_links').where('id', '=', id).execute();
}

export async function deleteLinksOfOwner(
  db: Executor,
  ownerType: SocialLinkOwnerType,
  ownerId: string,
): Promise<void> {
  await db
    .deleteFrom('social_links')
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .execute();
}
