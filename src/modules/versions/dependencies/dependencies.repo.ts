// Version dependency rows and the reads behind the version object, the dependents list and the dependency tree.
// Every read takes the whole set of ids at once: callers run a fixed number of queries whatever the list size.
import { sql } from 'kysely';
import type { ExpressionBuilder, Insertable, Kysely, Selectable, Transaction } from 'kysely';
import { ownerSideCondition } from '../../../core/auth/access.js';
import type { DB } from '../../../core/db/schema.js';
import type { VersionDependenciesTable } from '../../../core/db/schema/dependencies.js';
import type { ResourceSummaryRow } from '../../resources/resources.mapper.js';
import type { DependencyType } from './dependencies.schemas.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type DependencyRow = Selectable<VersionDependenciesTable>;

const SUMMARY = [
  'resources.id as r_id',
  'resources.name as r_name',
  'resources.slug as r_slug',
  'resources.short_description as r_short_description',
  'resources.icon_key as r_icon_key',
  'resources.type as r_type',
  'resources.status as r_status',
] as const;

/** The joined resource columns (prefixed r_), null when the target has none (external or deleted). */
export interface JoinedSummary {
  r_id: string | null;
  r_name: string | null;
  r_slug: string | null;
  r_short_description: string | null;
  r_icon_key: string | null;
  r_type: ResourceSummaryRow['type'] | null;
  r_status: string | null;
}

/** The summary row of a joined resource, or null when there is none. */
export function joinedSummary(row: JoinedSummary): ResourceSummaryRow | null {
  if (row.r_id === null || row.r_type === null) return null;
  return {
    id: row.r_id,
    name: row.r_name ?? '',
    slug: row.r_slug ?? '',
    short_description: row.r_short_description ?? '',
    icon_key: row.r_icon_key,
    type: row.r_type,
  };
}

/** The dependencies of the versions, each with its target resource, in (version, position) order. */
export function readDependencies(db: Executor, versionIds: readonly string[]) {
  return db
    .selectFrom('version_dependencies as d')
    .leftJoin('resources', 'resources.id', 'd.target_resource_id')
    .selectAll('d')
    .select(SUMMARY)
    .where('d.version_id', 'in', versionIds)
    .orderBy('d.version_id')
    .orderBy('d.position')
    .execute();
}

export async function replaceDependencies(
  trx: Transaction<DB>,
  versionId: string,
  rows: readonly Insertable<VersionDependenciesTable>[],
): Promise<void> {
  await trx.deleteFrom('version_dependencies').where('version_id', '=', versionId).execute();
  if (rows.length > 0)
    await trx
      .insertInto('version_dependencies')
      .values([...rows])
      .execute();
}

/** Versions named as targets, with the resource each belongs to. */
export function findVersionTargets(db: Executor, versionIds: readonly string[]) {
  return db
    .selectFrom('resource_versions')
    .select(['id', 'resource_id', 'status'])
    .where('id', 'in', versionIds)
    .execute();
}

/**
 * Resources named as targets, with `privileged` = 1 when the user is on their owner side or a contributor: the
 * facts of resource-access.ts (resource.view) and version-access.ts (seesEveryVersion) for many resources in
 * one query. Moderators are handled by the caller from their role.
 */
export function findResourceTargets(db: Executor, resourceIds: readonly string[], userId: string | null) {
  const privileged =
    userId === null
      ? sql<number>`0`
      : sql<number>`case when ${ownerSideCondition('resources', userId)} or exists (
          select 1 from resource_contributors c where c.resource_id = resources.id and c.user_id = ${userId}
        ) then 1 else 0 end`;
  return db
    .selectFrom('resources')
    .select(['id', 'status', privileged.as('privileged')])
    .where('id', 'in', resourceIds)
    .execute();
}

/** The id of the resource's newest APPROVED version (approval time, then creation time): §2.1's "newest". */
function newestApprovedOf(eb: ExpressionBuilder<DB, 'resources'>) {
  return eb
    .selectFrom('resource_versions as newest')
    .select('newest.id')
    .whereRef('newest.resource_id', '=', 'resources.id')
    .where('newest.status', '=', 'APPROVED')
    .orderBy('newest.approved_at', 'desc')
    .orderBy('newest.created_at', 'desc')
    .orderBy('newest.id', 'desc')
    .limit(1);
}

const VERSION = [
  'v.id as v_id',
  'v.version_number as v_version_number',
  'v.name as v_name',
  'v.channel as v_channel',
] as const;

/**
 * APPROVED resources among the ids, each with its newest APPROVED version (v_* null when it has none).
 * Resources not APPROVED (or gone) are absent.
 */
export function newestApprovedVersions(db: Executor, resourceIds: readonly string[]) {
  return db
    .selectFrom('resources')
    .leftJoin('resource_versions as v', (join) => join.on((eb) => eb('v.id', '=', newestApprovedOf(eb))))
    .select(SUMMARY)
    .select(VERSION)
    .where('resources.id', 'in', resourceIds)
    .where('resources.status', '=', 'APPROVED')
    .execute();
}

/** Publicly visible versions among the ids (APPROVED or ARCHIVED, of an APPROVED resource), with the resource. */
export function publicVersions(db: Executor, versionIds: readonly string[]) {
  return db
    .selectFrom('resource_versions as v')
    .innerJoin('resources', 'resources.id', 'v.resource_id')
    .select(SUMMARY)
    .select(VERSION)
    .where('v.id', 'in', versionIds)
    .where('v.status', 'in', ['APPROVED', 'ARCHIVED'])
    .where('resources.status', '=', 'APPROVED')
    .execute();
}

/** REQUIRED dependencies of the versions, in (version, position) order. */
export function requiredDependencies(db: Executor, versionIds: readonly string[]) {
  return db
    .selectFrom('version_dependencies')
    .selectAll()
    .where('version_id', 'in', versionIds)
    .where('type', '=', 'REQUIRED')
    .orderBy('version_id')
    .orderBy('position')
    .execute();
}

/** Whether any of the versions has a REQUIRED dependency (the tree's cut at its last level). */
export async function anyRequired(db: Executor, versionIds: readonly string[]): Promise<boolean> {
  if (versionIds.length === 0) return false;
  const row = await db
    .selectFrom('version_dependencies')
    .select('id')
    .where('version_id', 'in', versionIds)
    .where('type', '=', 'REQUIRED')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * APPROVED resources whose newest APPROVED version depends on the resource (directly or on one of its
 * versions). A version names each target resource at most once (validation), so each resource comes once.
 */
function dependentsQuery(db: Executor, resourceId: string, type: DependencyType | undefined) {
  let query = db
    .selectFrom('version_dependencies as d')
    .innerJoin('resource_versions as v', 'v.id', 'd.version_id')
    .innerJoin('resources', 'resources.id', 'v.resource_id')
    .where('d.target_resource_id', '=', resourceId)
    .where('resources.status', '=', 'APPROVED')
    .where('v.status', '=', 'APPROVED')
    .where((eb) => eb('v.id', '=', newestApprovedOf(eb)));
  if (type !== undefined) query = query.where('d.type', '=', type);
  return query;
}

export async function listDependents(
  db: Executor,
  resourceId: string,
  filter: { type: DependencyType | undefined; limit: number; offset: number },
) {
  const [page, total] = await Promise.all([
    dependentsQuery(db, resourceId, filter.type)
      .select(SUMMARY)
      .select(['d.type as dependency_type', 'v.id as via_version_id'])
      .orderBy('resources.name')
      .orderBy('resources.id')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute(),
    dependentsQuery(db, resourceId, filter.type)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { page, total: Number(total.n) };
}
