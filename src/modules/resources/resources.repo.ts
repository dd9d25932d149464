// Resource rows and the counters that move with them. Read views (owner, catalogs, lists) are in
// resource-views.repo.ts; catalog links in resource-links.repo.ts.
import { swapImageKey } from '../../core/db/image-columns.js';
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import { lockForUpdate } from '../../core/db/dialect.js';
import { moveCounter, moveCounters, readCounter } from '../../core/db/counters.js';
import { prepared } from '../../core/db/prepared.js';
import type { DB, ResourceStatus, ResourcesTable, ResourceType } from '../../core/db/schema.js';

/** A resource row without its (up to 50,000 characters) description and catalog names: enough for checks. */
export type ResourceHead = Omit<Selectable<ResourcesTable>, 'description' | 'catalog_refs' | 'approved_at'>;
type Executor = Kysely<DB> | Transaction<DB>;

const HEAD_COLUMNS = [
  'id',
  'name',
  'name_key',
  'slug',
  'short_description',
  'type',
  'status',
  'owner_type',
  'owner_id',
  'icon_key',
  'banner_key',
  'downloads',
  'like_count',
  'favorite_count',
  'latest_version_id',
  'created_at',
  'updated_at',
] as const;

const headById = prepared<ResourceHead, [string]>(1, (db, _dialect, id) =>
  db.selectFrom('resources').select(HEAD_COLUMNS).where('id', '=', id!),
);

/** The hottest lookup of the module (every sub-resource route checks access with it): prepared once. */
export async function findResourceHead(
  db: Executor,
  dialect: DialectName,
  id: string,
): Promise<ResourceHead | undefined> {
  return (await headById(db, dialect, id))[0];
}

/**
 * Serializes the writes to one resource (and what hangs under it) and tells whether it still exists: a change
 * that finds it gone answers 404 instead of failing on a foreign key. Every transaction that writes under a
 * resource takes this first; the deletion too, so it never runs half-way through one of them.
 */
export async function lockResource(trx: Transaction<DB>, dialect: DialectName, id: string): Promise<boolean> {
  await lockForUpdate(trx, dialect, `resource:${id}`);
  return (
    (await trx.selectFrom('resources').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
  );
}

/**
 * lockResource for an edit that compares against what is stored: the lock, then the head with its description in
 * one read (undefined: the resource is gone).
 */
export async function lockResourceForEdit(
  trx: Transaction<DB>,
  dialect: DialectName,
  id: string,
): Promise<(ResourceHead & { description: string }) | undefined> {
  await lockForUpdate(trx, dialect, `resource:${id}`);
  return trx
    .selectFrom('resources')
    .select([...HEAD_COLUMNS, 'description'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function slugExists(db: Executor, slug: string): Promise<boolean> {
  const row = await db.selectFrom('resources').select('id').where('slug', '=', slug).executeTakeFirst();
  return row !== undefined;
}

export async function insertResource(db: Executor, row: Insertable<ResourcesTable>): Promise<void> {
  await db.insertInto('resources').values(row).execute();
}

export async function updateResource(
  db: Executor,
  id: string,
  patch: Updateable<ResourcesTable>,
): Promise<boolean> {
  const result = await db.updateTable('resources').set(patch).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Moves the status only if it still is `from`: of a moderation and a concurrent edit (or two moderations), the
 * later one finds the status changed and reports a conflict instead of overwriting it.
 */
/** Moves the status if it is still `from`; the first move to APPROVED stamps approved_at (feeds sort by it). */
export async function moveStatus(
  db: Executor,
  id: string,
  from: ResourceStatus,
  to: ResourceStatus,
  at?: string,
): Promise<boolean> {
  const result = await db
    .updateTable('resources')
    .set((eb) => ({
      status: to,
      ...(to === 'APPROVED' && at !== undefined
        ? { approved_at: eb.fn.coalesce('approved_at', eb.val(at)) }
        : {}),
    }))
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes the row and returns it as it was at the moment of deletion (undefined: already gone). */
export async function deleteResourceRow(db: Executor, id: string): Promise<ResourceHead | undefined> {
  return db.deleteFrom('resources').where('id', '=', id).returning(HEAD_COLUMNS).executeTakeFirst();
}

/**
 * Swaps an image key only if it is still `expected`: of two concurrent uploads the second one loses instead of
 * orphaning the object the first one stored.
 */
export const swapResourceImage = (
  db: Executor,
  id: string,
  column: 'icon_key' | 'banner_key',
  expected: string | null,
  next: string | null,
  at: string,
): Promise<boolean> => swapImageKey(db, 'resources', id, column, expected, next, at);

// ---------------------------------------------------------------------------------------------------------------
// Counters (rows of `counters`, created by migration 0004)

export const statusCounter = (status: ResourceStatus) => `resources.status.${status}`;
export const approvedTypeCounter = (type: ResourceType) => `resources.approved.${type}`;

/**
 * Keeps the per-status totals and the per-type APPROVED totals in step with a status change; `null` stands for
 * "no resource" (creation, deletion). Runs in the transaction of the change.
 */
export async function moveStatusCounters(
  db: Executor,
  type: ResourceType,
  from: ResourceStatus | null,
  to: ResourceStatus | null,
): Promise<void> {
  if (from === to) return;
  const moves: Array<[string, number]> = [];
  if (from !== null) moves.push([statusCounter(from), -1]);
  if (to !== null) moves.push([statusCounter(to), 1]);
  if (from === 'APPROVED') moves.push([approvedTypeCounter(type), -1]);
  if (to === 'APPROVED') moves.push([approvedTypeCounter(type), 1]);
  await moveCounters(db, moves);
}

const CATALOGUE_VERSION = 'resources.catalogue_version';

/**
 * Moves the version the cached public list pages are filed under: call it in the transaction of any change the
 * public list shows (status, details, images, counts, catalog names, deletion), and no instance serves an older
 * page afterwards.
 */
export async function bumpCatalogueVersion(db: Executor): Promise<void> {
  await moveCounter(db, CATALOGUE_VERSION, 1);
}

export const readCatalogueVersion = (db: Kysely<DB>, dialect: DialectName) =>
  readCounter(db, dialect, CATALOGUE_VERSION);

/** teams.resource_count; false when the team is gone (a concurrent team deletion won). */
export async function moveTeamResourceCount(db: Executor, teamId: string, delta: 1 | -1): Promise<boolean> {
  const result = await db
    .updateTable('teams')
    .set((eb) => ({ resource_count: eb('resource_count', '+', delta) }))
    .where('id', '=', teamId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
