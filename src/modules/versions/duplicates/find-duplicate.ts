// Duplicates across owners (spec/extensions.md §2.4): a file whose SHA-512 equals an earlier file of a resource
// on another owner side is marked with `duplicate_of_file_id`. The mark is set once, at upload; a deleted
// original clears it (ON DELETE SET NULL) and it is not recomputed afterwards.
//
// "Same owner side" between two resources: the same owner (user or team), or a user owner who is a member of
// the other resource's owning team (a creator moving their plugin to their team is not re-uploading someone
// else's work). Two different teams are different sides even when they share members.
import { sql } from 'kysely';
import type { Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';

/** Where a duplicated file's original lives, as the file object's `duplicateOf` shows it. */
export interface DuplicateRef {
  resourceId: string;
  versionId: string;
  fileId: string;
}

/**
 * The original this content duplicates, or null. The original is the earliest (uploaded_at, id) file with this
 * SHA-512 on any resource, this one included: when that earliest file is on the uploading resource's own owner
 * side, nothing is marked — so an author re-uploading their own jar after a copycat is never flagged as the
 * copy. One query through version_files_sha512_idx; called in the upload's transaction, under the resource lock.
 */
export async function findDuplicate(
  trx: Transaction<DB>,
  input: { resourceId: string; sha512: string },
): Promise<DuplicateRef | null> {
  const { rows } = await sql<{
    file_id: string;
    version_id: string;
    resource_id: string;
    same_side: number | string;
  }>`
    select f.id as file_id, v.id as version_id, r.id as resource_id,
      case
        when r.id = mine.id then 1
        when r.owner_type = mine.owner_type and r.owner_id = mine.owner_id then 1
        when r.owner_type = 'TEAM' and mine.owner_type = 'USER' and exists (
          select 1 from team_members m where m.team_id = r.owner_id and m.user_id = mine.owner_id) then 1
        when r.owner_type = 'USER' and mine.owner_type = 'TEAM' and exists (
          select 1 from team_members m where m.team_id = mine.owner_id and m.user_id = r.owner_id) then 1
        else 0
      end as same_side
    from version_files f
    join resource_versions v on v.id = f.version_id
    join resources r on r.id = v.resource_id
    join resources mine on mine.id = ${input.resourceId}
    where f.sha512 = ${input.sha512}
    order by f.uploaded_at, f.id
    limit 1
  `.execute(trx);
  const earliest = rows[0];
  if (earliest === undefined || Number(earliest.same_side) === 1) return null;
  return { resourceId: earliest.resource_id, versionId: earliest.version_id, fileId: earliest.file_id };
}

/** The id of the original file (see findDuplicate), or null: the value of `duplicate_of_file_id`. */
export async function findDuplicateOf(
  trx: Transaction<DB>,
  input: { resourceId: string; sha512: string },
): Promise<string | null> {
  return (await findDuplicate(trx, input))?.fileId ?? null;
}
