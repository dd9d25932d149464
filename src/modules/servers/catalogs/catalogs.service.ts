// Server tags and categories (DESIGN §8 "Tags, categories"): public reads, admin-managed catalogs seeded by the
// 0005_servers migration. usage_count is moved by the servers and moderation code (catalog-links.repo.ts).
import type { Kysely } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import { isUniqueViolation } from '../../../core/db/dialect.js';
import type { DB } from '../../../core/db/schema.js';
import { notFound, slugTaken } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import { changedFields, recordCatalogAudit } from '../../audit/record.js';
import { refreshServerSearch, serverIdsOfCatalogEntry } from '../../search/server-documents.js';
import { bumpDirectoryVersion } from '../servers.repo.js';
import { optionalText } from '../servers.service.js';
import { toServerCategory, toServerTag } from './catalogs.mapper.js';
import * as repo from './catalogs.repo.js';

/** Static paths under /server-tags that a tag slug would be shadowed by. */
const RESERVED_TAG_SLUGS = new Set(['search', 'popular']);

const needle = (search: string | undefined) => {
  const trimmed = search?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
};

export interface TagInput {
  name: string;
  slug: string;
  description?: string | null;
}

export interface CategoryInput {
  name: string;
  slug: string;
  description?: string | null;
  iconUrl?: string | null;
  order?: number;
}

/** Runs an insert, turning a lost race on the unique slug into 409 SLUG_TAKEN. */
async function insertUnique(slug: string, insert: () => Promise<void>): Promise<void> {
  try {
    await insert();
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(slug);
    throw error;
  }
}

export type ServerCatalogsService = ReturnType<typeof createServerCatalogsService>;

export function createServerCatalogsService(deps: { db: Kysely<DB>; dialect: DialectName; clock: Clock }) {
  const { db, dialect, clock } = deps;

  async function requireTag(by: { id: string } | { slug: string }) {
    const row = await repo.findTag(db, by);
    if (row === undefined) throw notFound('Server tag');
    return row;
  }

  /** By id first (how these routes were first addressed), then by slug. */
  async function tagIdOf(key: string): Promise<string> {
    const row = (await repo.findTag(db, { id: key })) ?? (await repo.findTag(db, { slug: key }));
    if (row === undefined) throw notFound('Server tag');
    return row.id;
  }

  async function categoryIdOf(key: string): Promise<string> {
    const row = (await repo.findCategory(db, { id: key })) ?? (await repo.findCategory(db, { slug: key }));
    if (row === undefined) throw notFound('Server category');
    return row.id;
  }

  async function requireCategory(by: { id: string } | { slug: string }) {
    const row = await repo.findCategory(db, by);
    if (row === undefined) throw notFound('Server category');
    return row;
  }

  return {
    async listTags(search: string | undefined, limit: number, offset: number) {
      const q = needle(search);
      const [rows, total] = await Promise.all([
        repo.listTags(db, dialect, q, limit, offset),
        q === undefined ? repo.readTagTotal(db) : repo.countTagsMatching(db, dialect, q),
      ]);
      return { tags: rows.map(toServerTag), total };
    },

    async searchTags(q: string, limit: number) {
      const rows = await repo.listTagsByUsage(db, dialect, needle(q), limit);
      return rows.map((row) => ({ id: row.id, name: row.name, slug: row.slug, usageCount: row.usage_count }));
    },

    async popularTags(limit: number) {
      return (await repo.listTagsByUsage(db, dialect, undefined, limit)).map(toServerTag);
    },

    getTag: async (slug: string) => toServerTag(await requireTag({ slug })),

    async createTag(actorId: string, input: TagInput) {
      if (RESERVED_TAG_SLUGS.has(input.slug) || (await repo.tagSlugExists(db, input.slug))) {
        throw slugTaken(input.slug);
      }
      const row = {
        id: newId(),
        name: input.name,
        slug: input.slug,
        description: optionalText(input.description),
        usage_count: 0,
        created_at: clock.now().toISOString(),
      };
      await insertUnique(input.slug, () =>
        db.transaction().execute(async (trx) => {
          await repo.insertTag(trx, row);
          await repo.moveTagTotal(trx, 1);
          await recordCatalogAudit(trx, 'server_tag', 'created', {
            actorId,
            subjectId: row.id,
            before: null,
            after: { name: row.name, slug: row.slug },
            at: row.created_at,
          });
        }),
      );
      return toServerTag(row);
    },

    async updateTag(actorId: string, key: string, patch: { name?: string; description?: string | null }) {
      const id = await tagIdOf(key);
      const row = await requireTag({ id });
      const changes = {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.description !== undefined ? { description: optionalText(patch.description) } : {}),
      };
      if (Object.keys(changes).length > 0) {
        await db.transaction().execute(async (trx) => {
          await repo.updateTag(trx, id, changes);
          // Tag names are in the search documents of the servers carrying them.
          if (changes.name !== undefined) {
            await refreshServerSearch(trx, await serverIdsOfCatalogEntry(trx, 'tag', id));
          }
          await bumpDirectoryVersion(trx);
          await recordCatalogAudit(trx, 'server_tag', 'updated', {
            actorId,
            subjectId: id,
            ...changedFields(row, changes),
            at: clock.now().toISOString(),
          });
        });
      }
      return toServerTag({ ...row, ...changes });
    },

    /** The tag leaves every server that carried it. */
    async deleteTag(actorId: string, key: string): Promise<void> {
      const id = await tagIdOf(key);
      await db.transaction().execute(async (trx) => {
        const current = await repo.findTag(trx, { id });
        const carriers = await serverIdsOfCatalogEntry(trx, 'tag', id);
        if (current === undefined || !(await repo.deleteTag(trx, id))) throw notFound('Server tag');
        await refreshServerSearch(trx, carriers);
        await recordCatalogAudit(trx, 'server_tag', 'deleted', {
          actorId,
          subjectId: id,
          before: { name: current.name, slug: current.slug },
          after: null,
          at: clock.now().toISOString(),
        });
        await repo.moveTagTotal(trx, -1);
        await bumpDirectoryVersion(trx);
      });
    },

    listCategories: async () => (await repo.listCategories(db)).map(toServerCategory),

    getCategory: async (slug: string) => toServerCategory(await requireCategory({ slug })),

    async createCategory(actorId: string, input: CategoryInput) {
      if (await repo.categorySlugExists(db, input.slug)) throw slugTaken(input.slug);
      const row = {
        id: newId(),
        name: input.name,
        slug: input.slug,
        description: optionalText(input.description),
        icon_url: optionalText(input.iconUrl),
        usage_count: 0,
        position: input.order ?? (await repo.nextCategoryPosition(db)),
        created_at: clock.now().toISOString(),
      };
      await insertUnique(input.slug, () =>
        db.transaction().execute(async (trx) => {
          await repo.insertCategory(trx, row);
          await recordCatalogAudit(trx, 'server_category', 'created', {
            actorId,
            subjectId: row.id,
            before: null,
            after: { name: row.name, slug: row.slug },
            at: row.created_at,
          });
        }),
      );
      return toServerCategory(row);
    },

    async updateCategory(actorId: string, key: string, patch: Omit<Partial<CategoryInput>, 'slug'>) {
      const id = await categoryIdOf(key);
      const row = await requireCategory({ id });
      const changes = {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.description !== undefined ? { description: optionalText(patch.description) } : {}),
        ...(patch.iconUrl !== undefined ? { icon_url: optionalText(patch.iconUrl) } : {}),
        ...(patch.order !== undefined ? { position: patch.order } : {}),
      };
      if (Object.keys(changes).length > 0) {
        await db.transaction().execute(async (trx) => {
          await repo.updateCategory(trx, id, changes);
          if (changes.name !== undefined) {
            await refreshServerSearch(trx, await serverIdsOfCatalogEntry(trx, 'category', id));
          }
          await bumpDirectoryVersion(trx);
          await recordCatalogAudit(trx, 'server_category', 'updated', {
            actorId,
            subjectId: id,
            ...changedFields(row, changes),
            at: clock.now().toISOString(),
          });
        });
      }
      return toServerCategory({ ...row, ...changes });
    },

    /** The category leaves every server that was in it. */
    async deleteCategory(actorId: string, key: string): Promise<void> {
      const id = await categoryIdOf(key);
      await db.transaction().execute(async (trx) => {
        const current = await repo.findCategory(trx, { id });
        const members = await serverIdsOfCatalogEntry(trx, 'category', id);
        if (current === undefined || !(await repo.deleteCategory(trx, id))) throw notFound('Server category');
        await refreshServerSearch(trx, members);
        await recordCatalogAudit(trx, 'server_category', 'deleted', {
          actorId,
          subjectId: id,
          before: { name: current.name, slug: current.slug },
          after: null,
          at: clock.now().toISOString(),
        });
        await bumpDirectoryVersion(trx);
      });
    },
  };
}
