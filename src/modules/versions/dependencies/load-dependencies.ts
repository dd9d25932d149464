// Reads the dependencies of many versions at once (spec/extensions.md §2.2). Owned by the dependencies work:
// SCAFFOLD, to be built (one query whatever the number of versions).
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';
import type { VersionDependencyView } from './dependencies.schemas.js';

/** versionId → its dependencies in their stored order; versions without any are absent from the map. */
export function loadDependencies(
  _db: Kysely<DB> | Transaction<DB>,
  _versionIds: readonly string[],
): Promise<Map<string, VersionDependencyView[]>> {
  return Promise.resolve(new Map());
}
