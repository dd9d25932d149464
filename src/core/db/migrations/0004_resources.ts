import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { newId } from '../../ids.js';
import type { MigrationContext } from '../migrator.js';
import {
  DEFAULT_GAME_VERSIONS,
  DEFAULT_RESOURCE_CATEGORIES,
  DEFAULT_RESOURCE_TAGS,
} from './0004_resources.defaults.js';

// Frozen copies: a migration must not change meaning when the application's lists change later.
const TYPES = ['MOD', 'PLUGIN', 'ASSET_PACK', 'DATA_PACK', 'WORLD', 'PREFAB', 'MODPACK', 'PREMADE_SERVER'];
const STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'SUSPENDED'];

export function resources({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('resources')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        // Lower-cased name: sortBy=name is case-insensitive and the same on both dialects.
        .addColumn('name_key', 'text', (col) => col.notNull())
        .addColumn('slug', 'text', (col) => col.notNull().unique())
        .addColumn('short_description', 'text', (col) => col.notNull())
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        // A user or a team id: no foreign key, the owner kind decides the table.
        .addColumn('owner_type', 'text', (col) => col.notNull())
        .addColumn('owner_id', 'text', (col) => col.notNull())
        .addColumn('icon_key', 'text')
        .addColumn('banner_key', 'text')
        .addColumn('downloads', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('like_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('favorite_count', 'integer', (col) => col.notNull().defaultTo(0))
        // Set by the versions module; its foreign key arrives with the versions table.
        .addColumn('latest_version_id', 'text')
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        // The names of its categories, tags and game versions as the API shows them (JSON), kept in step with the
        // link tables and the catalogs: a list page reads 20 rows instead of 20 × 3 joined aggregates.
        .addColumn('catalog_refs', 'text', (col) =>
          col.notNull().defaultTo('{"categories":[],"tags":[],"gameVersions":[]}'),
        )
        // Last: SQLite reads a row's columns in order, and a long description spills into overflow pages that
        // every column after it would have to walk through.
        .addColumn('description', 'text', (col) => col.notNull())
        .execute();
      // One index per public sort, led by status (lists show one status); the id breaks ties.
      const sorts: Array<[string, string]> = [
        ['created', 'created_at'],
        ['updated', 'updated_at'],
        ['downloads', 'downloads'],
        ['likes', 'like_count'],
        ['name', 'name_key'],
      ];
      for (const [name, column] of sorts) {
        await db.schema
          .createIndex(`resources_status_${name}_idx`)
          .on('resources')
          .columns(['status', column, 'id'])
          .execute();
      }
      await db.schema
        .createIndex('resources_type_status_created_idx')
        .on('resources')
        .columns(['type', 'status', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('resources_owner_idx')
        .on('resources')
        .columns(['owner_type', 'owner_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('resources_latest_version_idx')
        .on('resources')
        .column('latest_version_id')
        .execute();

      await db.schema
        .createTable('resource_categories')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('slug', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('resource_type', 'text', (col) => col.notNull())
        .addColumn('usage_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('position', 'integer', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .addUniqueConstraint('resource_categories_type_slug_key', ['resource_type', 'slug'])
        .execute();
      await db.schema
        .createIndex('resource_categories_type_position_idx')
        .on('resource_categories')
        .columns(['resource_type', 'position'])
        .execute();

      await db.schema
        .createTable('resource_tags')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('slug', 'text', (col) => col.notNull().unique())
        .addColumn('description', 'text')
        .addColumn('usage_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('resource_tags_name_idx').on('resource_tags').column('name').execute();
      await db.schema
        .createIndex('resource_tags_usage_idx')
        .on('resource_tags')
        .columns(['usage_count', 'name'])
        .execute();
      // Per-type usage, kept beside the global one so the popular tags of a type are an index read.
      await db.schema
        .createTable('resource_tag_type_usage')
        .addColumn('tag_id', 'text', (col) =>
          col.notNull().references('resource_tags.id').onDelete('cascade'),
        )
        .addColumn('resource_type', 'text', (col) => col.notNull())
        .addColumn('usage_count', 'integer', (col) => col.notNull())
        .addPrimaryKeyConstraint('resource_tag_type_usage_pk', ['tag_id', 'resource_type'])
        .execute();
      await db.schema
        .createIndex('resource_tag_type_usage_type_idx')
        .on('resource_tag_type_usage')
        .columns(['resource_type', 'usage_count'])
        .execute();

      await db.schema
        .createTable('game_versions')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull().unique())
        .addColumn('release_order', 'integer', (col) => col.notNull())
        .addColumn('released_at', ts)
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('game_versions_release_order_idx')
        .on('game_versions')
        .columns(['release_order', 'id'])
        .execute();

      const links: Array<[table: string, column: string, target: string]> = [
        ['resource_category_links', 'category_id', 'resource_categories.id'],
        ['resource_tag_links', 'tag_id', 'resource_tags.id'],
        ['resource_game_versions', 'game_version_id', 'game_versions.id'],
      ];
      for (const [table, column, target] of links) {
        await db.schema
          .createTable(table)
          .addColumn('resource_id', 'text', (col) =>
            col.notNull().references('resources.id').onDelete('cascade'),
          )
          .addColumn(column, 'text', (col) => col.notNull().references(target).onDelete('cascade'))
          .addPrimaryKeyConstraint(`${table}_pk`, ['resource_id', column])
          .execute();
        // The primary key serves resource → catalog; this one serves the list filters (catalog → resources).
        await db.schema
          .createIndex(`${table}_${column}_idx`)
          .on(table)
          .columns([column, 'resource_id'])
          .execute();
      }

      await db.schema
        .createTable('resource_external_links')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('resource_id', 'text', (col) =>
          col.notNull().references('resources.id').onDelete('cascade'),
        )
        .addColumn('title', 'text', (col) => col.notNull())
        .addColumn('url', 'text', (col) => col.notNull())
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('position', 'integer', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('resource_external_links_resource_idx')
        .on('resource_external_links')
        .columns(['resource_id', 'position'])
        .execute();

      await db.schema
        .createTable('resource_contributors')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('resource_id', 'text', (col) =>
          col.notNull().references('resources.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .addUniqueConstraint('resource_contributors_pair_key', ['resource_id', 'user_id'])
        .execute();
      await db.schema
        .createIndex('resource_contributors_user_idx')
        .on('resource_contributors')
        .columns(['user_id', 'resource_id'])
        .execute();

      for (const table of ['resource_likes', 'resource_favorites']) {
        await db.schema
          .createTable(table)
          .addColumn('id', 'text', (col) => col.primaryKey())
          .addColumn('resource_id', 'text', (col) =>
            col.notNull().references('resources.id').onDelete('cascade'),
          )
          .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
          .addColumn('created_at', ts, (col) => col.notNull())
          .addUniqueConstraint(`${table}_pair_key`, ['resource_id', 'user_id'])
          .execute();
        await db.schema
          .createIndex(`${table}_resource_created_idx`)
          .on(table)
          .columns(['resource_id', 'created_at', 'id'])
          .execute();
        await db.schema
          .createIndex(`${table}_user_created_idx`)
          .on(table)
          .columns(['user_id', 'created_at', 'id'])
          .execute();
      }

      await db.schema
        .createTable('resource_moderation_events')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('resource_id', 'text', (col) =>
          col.notNull().references('resources.id').onDelete('cascade'),
        )
        .addColumn('action', 'text', (col) => col.notNull())
        .addColumn('from_status', 'text', (col) => col.notNull())
        .addColumn('to_status', 'text', (col) => col.notNull())
        .addColumn('reason', 'text')
        // The history outlives a moderator's account.
        .addColumn('moderator_id', 'text', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('created_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('resource_moderation_events_resource_idx')
        .on('resource_moderation_events')
        .columns(['resource_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('resource_moderation_events_moderator_idx')
        .on('resource_moderation_events')
        .column('moderator_id')
        .execute();

      // List totals come from these rows (DESIGN §5), moved with every status change.
      const counters = [
        ...STATUSES.map((status) => `resources.status.${status}`),
        ...TYPES.map((type) => `resources.approved.${type}`),
        'resource_tags',
        // Moves with every change the public resource list shows (see resources/resource-lists.routes.ts).
        'resources.catalogue_version',
      ];
      await db
        .insertInto('counters' as never)
        .values(counters.map((name) => ({ name, value: 0 })) as never)
        .execute();
      await seedCatalogs(db);
    },
  };
}

async function seedCatalogs(db: Kysely<unknown>): Promise<void> {
  const now = new Date().toISOString();
  const categories = Object.entries(DEFAULT_RESOURCE_CATEGORIES).flatMap(([type, list]) =>
    list.map(([name, slug], position) => ({
      id: newId(),
      name,
      slug,
      description: null,
      resource_type: type,
      usage_count: 0,
      position,
      created_at: now,
      updated_at: now,
    })),
  );
  await db
    .insertInto('resource_categories' as never)
    .values(categories as never)
    .execute();
  const tags = DEFAULT_RESOURCE_TAGS.map(([name, slug]) => ({
    id: newId(),
    name,
    slug,
    description: null,
    usage_count: 0,
    created_at: now,
    updated_at: now,
  }));
  await db
    .insertInto('resource_tags' as never)
    .values(tags as never)
    .execute();
  await sql`update counters set value = ${tags.length} where name = 'resource_tags'`.execute(db);
  const versions = DEFAULT_GAME_VERSIONS.map((name, index) => ({
    id: newId(),
    name,
    release_order: index + 1,
    released_at: null,
    created_at: now,
    updated_at: now,
  }));
  await db
    .insertInto('game_versions' as never)
    .values(versions as never)
    .execute();
}
