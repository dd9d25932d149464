// Duplicates across owners (spec/extensions.md §2.4). Owned by the duplicates work: SCAFFOLD, to be built.
import type { Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';

/**
 * The id of the earliest file of another resource, not on the same owner side, with this SHA-512; null when
 * there is none. Called inside the upload's transaction, under the resource lock.
 */
export function findDuplicateOf(
  _trx: Transaction<DB>,
  _input: { resourceId: string; sha512: string },
): Promise<string | null> {
  return Promise.resolve(null);
}
