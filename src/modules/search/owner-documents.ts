// An owner's names (a user's username and display name, a team's name) are weight D of the search documents of
// the resources and servers they own: a rename refreshes all of those, in the rename's transaction, and moves the
// versions the public list pages are cached under.
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { bumpCatalogueVersion } from '../resources/resources.repo.js';
import { bumpDirectoryVersion } from '../servers/servers.repo.js';
import { refreshResourceSearch } from './resource-documents.js';
import { refreshServerSearch, serverIdsOfOwner } from './server-documents.js';

type Executor = Kysely<DB> | Transaction<DB>;

export async function refreshDocumentsOfOwner(
  trx: Executor,
  dialect: DialectName,
  ownerType: 'USER' | 'TEAM',
  ownerId: string,
): Promise<void> {
  const resources = await trx
    .selectFrom('resources')
    .select('id')
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .execute();
  // What the public lists find changed: their cached pages (core/http/page-cache.ts) must not outlive it.
  if (resources.length > 0) {
    await refreshResourceSearch(
      trx,
      dialect,
      resources.map((row) => row.id),
    );
    await bumpCatalogueVersion(trx);
  }
  const servers = await serverIdsOfOwner(trx, ownerType, ownerId);
  if (servers.length > 0) {
    await refreshServerSearch(trx, servers);
    await bumpDirectoryVersion(trx);
  }
}
