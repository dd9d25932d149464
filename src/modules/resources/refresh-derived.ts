// What is stored about a resource but derived from other rows: catalog_refs (the names of its tags, categories
// and game versions, catalog-refs.repo.ts) and its search document (search/resource-documents.ts). Every write
// that can change either calls this, in its transaction, after the change, so no caller refreshes one and forgets
// the other.
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { refreshResourceSearch } from '../search/resource-documents.js';
import { refreshCatalogRefs } from './catalog-refs.repo.js';

export async function refreshDerived(
  trx: Kysely<DB> | Transaction<DB>,
  dialect: DialectName,
  resourceIds: readonly string[],
): Promise<void> {
  if (resourceIds.length === 0) return;
  await refreshCatalogRefs(trx, resourceIds);
  await refreshResourceSearch(trx, dialect, resourceIds);
}
