// A resource's categories, tags and game versions (join tables) and the usage counters that move with them
// (DESIGN §5: in the same transaction as the change).
import type { Kysely, Transaction } from 'kysely';
import type { DB, ResourceType } from '../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

export interface CatalogSelection {
  categoryIds: string[];
  tagIds: string[];
  gameVersionIds: string[];
}

export async function readLinkIds(db: Executor, resourceId: string): Promise<CatalogSelection> {
  const [categories, tags, versions] = await Promise.all([
    db
      .selectFrom('resource_category_links')
      .select('category_id as id')
      .where('resource_id', '=', resourceId)
      .execute(),
    db
      .selectFrom('resource_tag_links')
      .select('tag_id as id')
      .where('resource_id', '=', resourceId)
      .execute(),
    db
      .selectFrom('resource_game_versions')
      .select('game_version_id as id')
      .where('resource_id', '=', resourceId)
      .execute(),
  ]);
  return {
    categoryIds: categories.map((row) => row.id),
    tagIds: tags.map((row) => row.id),
    gameVersionIds: versions.map((row) => row.id),
  };
}

export async function findCategories(db: Executor, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('resource_categories')
    .select(['id', 'resource_type'])
    .where('id', 'in', ids)
    .execute();
}

export async function findTagIds(db: Executor, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('resource_tags').select('id').where('id', 'in', ids).execute();
  return rows.map((row) => row.id);
}

export async function findGameVersionIds(db: Executor, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('game_versions').select('id').where('id', 'in', ids).execute();
  return rows.map((row) => row.id);
}

function diff(current: readonly string[], next: readonly string[]) {
  const before = new Set(current);
  const after = new Set(next);
  return {
    added: [...after].filter((id) => !before.has(id)),
    removed: [...before].filter((id) => !after.has(id)),
  };
}

async function moveCategoryUsage(db: Executor, ids: string[], delta: 1 | -1): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('resource_categories')
    .set((eb) => ({ usage_count: eb('usage_count', '+', delta) }))
    .where('id', 'in', ids)
    .execute();
}

/** The global usage and the usage by resources of this type (popular tags per type). */
async function moveTagUsage(db: Executor, ids: string[], type: ResourceType, delta: 1 | -1): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('resource_tags')
    .set((eb) => ({ usage_count: eb('usage_count', '+', delta) }))
    .where('id', 'in', ids)
    .execute();
  if (delta === 1) {
    await db
      .insertInto('resource_tag_type_usage')
      .values(ids.map((id) => ({ tag_id: id, resource_type: type, usage_count: 1 })))
      .onConflict((oc) =>
        oc.columns(['tag_id', 'resource_type']).doUpdateSet((eb) => ({
          usage_count: eb('resource_tag_type_usage.usage_count', '+', 1),
        })),
      )
      .execute();
  } else {
    await db
      .updateTable('resource_tag_type_usage')
      .set((eb) => ({ usage_count: eb('usage_count', '-', 1) }))
      .where('tag_id', 'in', ids)
      .where('resource_type', '=', type)
      .execute();
  }
}

/**
 * Replaces whichever selections `next` names, moving the usage counters by the difference. The caller holds the
 * resource lock, so `current` cannot change underneath.
 */
export async function replaceLinks(
  trx: Transaction<DB>,
  resource: { id: string; type: ResourceType },
  current: CatalogSelection,
  next: Partial<CatalogSelection>,
): Promise<void> {
  if (next.categoryIds !== undefined) {
    const { added, removed } = diff(current.categoryIds, next.categoryIds);
    if (removed.length > 0) {
      await trx
        .deleteFrom('resource_category_links')
        .where('resource_id', '=', resource.id)
        .where('category_id', 'in', removed)
        .execute();
    }
    if (added.length > 0) {
      await trx
        .insertInto('resource_category_links')
        .values(added.map((id) => ({ resource_id: resource.id, category_id: id })))
        .execute();
    }
    await moveCategoryUsage(trx, added, 1);
    await moveCategoryUsage(trx, removed, -1);
  }
  if (next.tagIds !== undefined) {
    const { added, removed } = diff(current.tagIds, next.tagIds);
    if (removed.length > 0) {
      await trx
        .deleteFrom('resource_tag_links')
        .where('resource_id', '=', resource.id)
        .where('tag_id', 'in', removed)
        .execute();
    }
    if (added.length > 0) {
      await trx
        .insertInto('resource_tag_links')
        .values(added.map((id) => ({ resource_id: resource.id, tag_id: id })))
        .execute();
    }
    await moveTagUsage(trx, added, resource.type, 1);
    await moveTagUsage(trx, removed, resource.type, -1);
  }
  if (next.gameVersionIds !== undefined) {
    const { added, removed } = diff(current.gameVersionIds, next.gameVersionIds);
    if (removed.length > 0) {
      await trx
        .deleteFrom('resource_game_versions')
        .where('resource_id', '=', resource.id)
        .where('game_version_id', 'in', removed)
        .execute();
    }
    if (added.length > 0) {
      await trx
        .insertInto('resource_game_versions')
        .values(added.map((id) => ({ resource_id: resource.id, game_version_id: id })))
        .execute();
    }
  }
}

/** Before a resource row goes (its links cascade): give back the usage its categories and tags counted. */
export async function releaseLinks(trx: Transaction<DB>, resource: { id: string; type: ResourceType }) {
  const current = await readLinkIds(trx, resource.id);
  await moveCategoryUsage(trx, current.categoryIds, -1);
  await moveTagUsage(trx, current.tagIds, resource.type, -1);
}

// ---------------------------------------------------------------------------------------------------------------
// List filters: the values a client sends, resolved to IDs

/** Tag slugs or IDs → IDs. */
export async function resolveTagFilter(db: Executor, values: readonly string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('resource_tags')
    .select('id')
    .where((eb) => eb.or([eb('id', 'in', values), eb('slug', 'in', values)]))
    .execute();
  return rows.map((row) => row.id);
}

/** Category slugs or IDs → IDs; a slug names one category per type, so the type narrows it when given. */
export async function resolveCategoryFilter(
  db: Executor,
  values: readonly string[],
  type: ResourceType | undefined,
): Promise<string[]> {
  let query = db
    .selectFrom('resource_categories')
    .select('id')
    .where((eb) => eb.or([eb('id', 'in', values), eb('slug', 'in', values)]));
  if (type !== undefined) query = query.where('resource_type', '=', type);
  return (await query.execute()).map((row) => row.id);
}

/** Game version names → IDs. */
export async function resolveGameVersionFilter(db: Executor, names: readonly string[]): Promise<string[]> {
  const rows = await db.selectFrom('game_versions').select('id').where('name', 'in', names).execute();
  return rows.map((row) => row.id);
}
