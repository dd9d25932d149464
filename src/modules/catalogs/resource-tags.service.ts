// Resource tags (DESIGN §8 "Tags, categories, game versions"): public reads, admin writes. usageCount moves with
// the resources' tag links (resources/resource-links.repo.ts); the tag total is a maintained counter.
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
import { toResourceTag } from './catalogs.mapper.js';
import * as repo from './resource-tags.repo.js';
import { TYPE_ALIASES } from './resource-tags.schemas.js';

const emptyToNull = (text: string | null | undefined) => (text === undefined || text === '' ? null : text);

export type ResourceTagsService = ReturnType<typeof createResourceTagsService>;

export function createResourceTagsService(deps: { db: Kysely<DB>; dialect: DialectName; clock: Clock }) {
  const { db, dialect, clock } = deps;

  async function requireTag(by: { id: string } | { slug: string }) {
    const row = await repo.findTag(db, by);
    if (row === undefined) throw notFound('Resource tag');
    return row;
  }

  /** Translates a lost race on the unique slug into the same 409 as the check before it. */
  async function guardSlug<T>(slug: string | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (slug !== undefined && isUniqueViolation(error)) throw slugTaken(slug);
      throw error;
    }
  }

  return {
    async list(search: string | undefined, limit: number, offset: number) {
      const needle = search?.trim() === '' ? undefined : search?.trim();
      if (needle === undefined) {
        const page = await repo.listTagPage(db, dialect, limit, offset);
        return { tags: page.rows.map(toResourceTag), total: page.total };
      }
      const [rows, total] = await Promise.all([
        repo.listTags(db, dialect, needle, limit, offset),
        repo.countTagsMatching(db, dialect, needle),
      ]);
      return { tags: rows.map(toResourceTag), total };
    },

    async search(q: string, limit: number) {
      const rows = await repo.searchTags(db, dialect, q.trim(), limit);
      return rows.map((row) => ({ id: row.id, name: row.name, slug: row.slug, usageCount: row.usage_count }));
    },

    async popular(type: ResourceType | keyof typeof TYPE_ALIASES, limit: number) {
      const resourceType: ResourceType =
        type in TYPE_ALIASES ? TYPE_ALIASES[type as keyof typeof TYPE_ALIASES] : (type as ResourceType);
      const rows = await repo.popularTags(db, resourceType, limit);
      return rows.map((row) => ({ ...toResourceTag(row), resourceType }));
    },

    get: async (by: { id: string } | { slug: string }) => toResourceTag(await requireTag(by)),

    async create(actorId: string, input: { name: string; slug: string; description?: string | null }) {
      if (await repo.slugTaken(db, input.slug)) throw slugTaken(input.slug);
      const now = clock.now().toISOString();
      const row = {
        id: newId(),
        name: input.name,
        slug: input.slug,
        description: emptyToNull(input.description),
        usage_count: 0,
        created_at: now,
        updated_at: now,
      };
      await guardSlug(input.slug, () =>
        db.transaction().execute(async (trx) => {
          await repo.insertTag(trx, row);
          await repo.moveTagTotal(trx, 1);
          await recordCatalogAudit(trx, 'resource_tag', 'created', {
            actorId,
            subjectId: row.id,
            before: null,
            after: { name: row.name, slug: row.slug },
            at: now,
          });
        }),
      );
      return toResourceTag(row);
    },

    async update(
      actorId: string,
      id: string,
      patch: { name?: string; slug?: string; description?: string | null },
    ) {
      const current = await requireTag({ id });
      if (patch.slug !== undefined && (await repo.slugTaken(db, patch.slug, id))) throw slugTaken(patch.slug);
      const changes = {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.slug !== undefined ? { slug: patch.slug } : {}),
        ...(patch.description !== undefined ? { description: emptyToNull(patch.description) } : {}),
        updated_at: clock.now().toISOString(),
      };
      const updated = await guardSlug(patch.slug, () =>
        db.transaction().execute(async (trx) => {
          if (!(await repo.updateTag(trx, id, changes))) return false;
          await recordCatalogAudit(trx, 'resource_tag', 'updated', {
            actorId,
            subjectId: id,
            ...changedFields(current, changes),
            at: changes.updated_at,
          });
          // The resources show the tag's name and slug.
          if (patch.name !== undefined || patch.slug !== undefined) {
            await refreshDerived(trx, dialect, await resourcesLinkedTo(trx, 'tag', id));
            await bumpCatalogueVersion(trx);
          }
          return true;
        }),
      );
      if (!updated) throw notFound('Resource tag');
      return toResourceTag(await requireTag({ id }));
    },

    /** Resources that carried the tag simply lose it. */
    async remove(actorId: string, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await repo.lockResourcesTagged(trx, dialect, id);
        const linked = await resourcesLinkedTo(trx, 'tag', id);
        const current = await repo.findTag(trx, { id });
        if (current === undefined || !(await repo.deleteTag(trx, id))) throw notFound('Resource tag');
        await repo.moveTagTotal(trx, -1);
        await recordCatalogAudit(trx, 'resource_tag', 'deleted', {
          actorId,
          subjectId: id,
          before: { name: current.name, slug: current.slug },
          after: null,
          at: clock.now().toISOString(),
        });
        await refreshDerived(trx, dialect, linked);
        await bumpCatalogueVersion(trx);
      });
    },
  };
}
