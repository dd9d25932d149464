// Resource categories, one set per resource type (DESIGN §8 "Tags, categories, game versions"): public reads,
// admin writes; usageCount moves with the resources' category links.
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { isUniqueViolation } from '../../core/db/dialect.js';
import type { DB, ResourceType } from '../../core/db/schema.js';
import { notFound, slugTaken } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import { changedFields, recordCatalogAudit } from '../audit/record.js';
import { resourcesLinkedTo } from '../resources/catalog-refs.repo.js';
import { refreshDerived } from '../resources/refresh-derived.js';
import { bumpCatalogueVersion } from '../resources/resources.repo.js';
import { toCategory } from './catalogs.mapper.js';
import * as repo from './resource-categories.repo.js';

const emptyToNull = (text: string | null | undefined) => (text === undefined || text === '' ? null : text);

export interface CategoryInput {
  name: string;
  slug: string;
  resourceType: ResourceType;
  description?: string | null;
  order?: number;
}

export type ResourceCategoriesService = ReturnType<typeof createResourceCategoriesService>;

export function createResourceCategoriesService({
  db,
  dialect,
  clock,
}: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
}) {
  async function requireCategory(id: string) {
    const row = await repo.findCategory(db, id);
    if (row === undefined) throw notFound('Resource category');
    return row;
  }

  async function guardSlug<T>(slug: string | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (slug !== undefined && isUniqueViolation(error)) throw slugTaken(slug);
      throw error;
    }
  }

  return {
    list: async (type: ResourceType | undefined) => (await repo.listCategories(db, type)).map(toCategory),

    async create(actorId: string, input: CategoryInput) {
      if (await repo.slugTakenInType(db, input.resourceType, input.slug)) throw slugTaken(input.slug);
      const now = clock.now().toISOString();
      const row = {
        id: newId(),
        name: input.name,
        slug: input.slug,
        description: emptyToNull(input.description),
        resource_type: input.resourceType,
        usage_count: 0,
        position: input.order ?? (await repo.nextPosition(db, input.resourceType)),
        created_at: now,
        updated_at: now,
      };
      await guardSlug(input.slug, () =>
        db.transaction().execute(async (trx) => {
          await repo.insertCategory(trx, row);
          await recordCatalogAudit(trx, 'resource_category', 'created', {
            actorId,
            subjectId: row.id,
            before: null,
            after: { name: row.name, slug: row.slug, resourceType: row.resource_type },
            at: now,
          });
        }),
      );
      return toCategory(row);
    },

    async update(actorId: string, id: string, patch: Partial<Omit<CategoryInput, 'resourceType'>>) {
      const current = await requireCategory(id);
      if (
        patch.slug !== undefined &&
        (await repo.slugTakenInType(db, current.resource_type, patch.slug, id))
      ) {
        throw slugTaken(patch.slug);
      }
      const changes = {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.slug !== undefined ? { slug: patch.slug } : {}),
        ...(patch.description !== undefined ? { description: emptyToNull(patch.description) } : {}),
        ...(patch.order !== undefined ? { position: patch.order } : {}),
        updated_at: clock.now().toISOString(),
      };
      const updated = await guardSlug(patch.slug, () =>
        db.transaction().execute(async (trx) => {
          if (!(await repo.updateCategory(trx, id, changes))) return false;
          await recordCatalogAudit(trx, 'resource_category', 'updated', {
            actorId,
            subjectId: id,
            ...changedFields(current, changes),
            at: changes.updated_at,
          });
          // The resources show the category's name and slug, in category order.
          await refreshDerived(trx, dialect, await resourcesLinkedTo(trx, 'category', id));
          await bumpCatalogueVersion(trx);
          return true;
        }),
      );
      if (!updated) throw notFound('Resource category');
      return toCategory(await requireCategory(id));
    },

    /** Resources in the category simply leave it. */
    async remove(actorId: string, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const linked = await resourcesLinkedTo(trx, 'category', id);
        const current = await repo.findCategory(trx, id);
        if (current === undefined || !(await repo.deleteCategory(trx, id)))
          throw notFound('Resource category');
        await recordCatalogAudit(trx, 'resource_category', 'deleted', {
          actorId,
          subjectId: id,
          before: { name: current.name, slug: current.slug, resourceType: current.resource_type },
          after: null,
          at: clock.now().toISOString(),
        });
        await refreshDerived(trx, dialect, linked);
        await bumpCatalogueVersion(trx);
      });
    },
  };
}
