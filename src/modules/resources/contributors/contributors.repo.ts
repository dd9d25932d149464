import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DB, ResourceContributorRole, ResourceContributorsTable } from '../../../core/db/schema.js';

export type ContributorRow = Selectable<ResourceContributorsTable>;
type Executor = Kysely<DB> | Transaction<DB>;

export interface ContributorWithUserRow extends ContributorRow {
  username: string;
  display_name: string | null;
  image_key: string | null;
}

function withUsers(db: Executor) {
  return db
    .selectFrom('resource_contributors as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .select([
      'c.id',
      'c.resource_id',
      'c.user_id',
      'c.role',
      'c.created_at',
      'c.updated_at',
      'u.username',
      'u.display_name',
      'u.image_key',
    ]);
}

/** Oldest first. */
export const listContributors = (db: Executor, resourceId: string): Promise<ContributorWithUserRow[]> =>
  withUsers(db).where('c.resource_id', '=', resourceId).orderBy('c.created_at').orderBy('c.id').execute();

export const findContributor = (
  db: Executor,
  resourceId: string,
  userId: string,
): Promise<ContributorWithUserRow | undefined> =>
  withUsers(db).where('c.resource_id', '=', resourceId).where('c.user_id', '=', userId).executeTakeFirst();

/** False when the user already is a contributor. */
export async function insertContributor(db: Executor, row: ContributorRow): Promise<boolean> {
  const result = await db
    .insertInto('resource_contributors')
    .values(row)
    .onConflict((oc) => oc.columns(['resource_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function updateContributorRole(
  db: Executor,
  resourceId: string,
  userId: string,
  role: ResourceContributorRole,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('resource_contributors')
    .set({ role, updated_at: at })
    .where('resource_id', '=', resourceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteContributor(db: Executor, resourceId: string, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('resource_contributors')
    .where('resource_id', '=', resourceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
