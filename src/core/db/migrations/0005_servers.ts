import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { newId } from '../../ids.js';
import type { MigrationContext } from '../migrator.js';

/** The catalogs a fresh installation starts with; admins edit them through /server-tags and /server-categories. */
const DEFAULT_CATEGORIES: Array<[name: string, slug: string, description: string]> = [
  ['Survival', 'survival', 'Gather, build and stay alive'],
  ['Creative', 'creative', 'Unlimited resources for builders'],
  ['PvP', 'pvp', 'Player-versus-player combat'],
  ['Minigames', 'minigames', 'Short rounds of many small games'],
  ['Roleplay', 'roleplay', 'Characters, stories and communities'],
  ['Adventure', 'adventure', 'Quests, dungeons and exploration'],
  ['Modded', 'modded', 'Servers running mods or plugins that change the game'],
  ['Economy', 'economy', 'Trading, shops and player markets'],
];

const DEFAULT_TAGS: Array<[name: string, slug: string, description: string]> = [
  ['PvE', 'pve', 'Players fight the world, not each other'],
  ['Factions', 'factions', 'Teams of players competing for land'],
  ['Skyblock', 'skyblock', 'Start on a small island in the sky'],
  ['Parkour', 'parkour', 'Jump-and-run courses'],
  ['Quests', 'quests', 'Guided tasks and storylines'],
  ['Dungeons', 'dungeons', 'Instanced challenges with loot'],
  ['Hardcore', 'hardcore', 'Harsh rules, permanent consequences'],
  ['Vanilla', 'vanilla', 'The game as shipped, no gameplay changes'],
  ['Whitelist', 'whitelist', 'Players must apply before joining'],
  ['Cross-play', 'cross-play', 'Open to players on every platform'],
  ['Beginner friendly', 'beginner-friendly', 'Welcoming to new players'],
  ['Events', 'events', 'Regular organised events'],
];

export function servers({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('servers')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('slug', 'text', (col) => col.notNull().unique())
        .addColumn('short_description', 'text')
        .addColumn('description', 'text')
        .addColumn('ip', 'text', (col) => col.notNull())
        .addColumn('port', 'integer', (col) => col.notNull())
        .addColumn('online', 'boolean', (col) => col.notNull().defaultTo(false))
        .addColumn('online_players', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('max_players', 'integer', (col) => col.notNull().defaultTo(0))
        // Position among APPROVED servers, written by the recompute-server-ranks job; null otherwise.
        .addColumn('rank', 'integer')
        .addColumn('status', 'text', (col) => col.notNull())
        // Reason of the last REJECT or SUSPEND, shown to the owner side; cleared on APPROVE.
        .addColumn('status_reason', 'text')
        .addColumn('status_updated_at', ts, (col) => col.notNull())
        // 'USER' | 'TEAM'; no foreign key since it points at one of two tables.
        .addColumn('owner_type', 'text', (col) => col.notNull())
        .addColumn('owner_id', 'text', (col) => col.notNull())
        .addColumn('logo_key', 'text')
        .addColumn('banner_key', 'text')
        .addColumn('last_reported_at', ts)
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .execute();
      // One index per public sort among APPROVED servers, each ending in the tie-breaker the query uses.
      await db.schema
        .createIndex('servers_status_rank_idx')
        .on('servers')
        .columns(['status', 'rank', 'id'])
        .execute();
      await db.schema
        .createIndex('servers_status_players_idx')
        .on('servers')
        .columns(['status', 'online_players desc', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('servers_status_created_idx')
        .on('servers')
        .columns(['status', 'created_at', 'id'])
        .execute();
      // The moderation queue: one status, oldest change first.
      await db.schema
        .createIndex('servers_status_changed_idx')
        .on('servers')
        .columns(['status', 'status_updated_at', 'id'])
        .execute();
      await db.schema
        .createIndex('servers_owner_idx')
        .on('servers')
        .columns(['owner_type', 'owner_id', 'created_at'])
        .execute();
      // The rank job looks for servers that stopped reporting.
      await db.schema
        .createIndex('servers_online_reported_idx')
        .on('servers')
        .columns(['online', 'last_reported_at'])
        .execute();

      await db.schema
        .createTable('server_tags')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('slug', 'text', (col) => col.notNull().unique())
        .addColumn('description', 'text')
        // APPROVED servers carrying the tag, moved in the same transaction as the change.
        .addColumn('usage_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', ts, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('server_tags_name_idx').on('server_tags').columns(['name', 'id']).execute();
      await db.schema
        .createIndex('server_tags_usage_idx')
        .on('server_tags')
        .columns(['usage_count desc', 'name'])
        .execute();

      await db.schema
        .createTable('server_categories')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('slug', 'text', (col) => col.notNull().unique())
        .addColumn('description', 'text')
        .addColumn('icon_url', 'text')
        .addColumn('usage_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('position', 'integer', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('server_categories_position_idx')
        .on('server_categories')
        .columns(['position', 'name'])
        .execute();

      await db.schema
        .createTable('server_tag_links')
        .addColumn('server_id', 'text', (col) => col.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('tag_id', 'text', (col) => col.notNull().references('server_tags.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('server_tag_links_pk', ['server_id', 'tag_id'])
        .execute();
      await db.schema
        .createIndex('server_tag_links_tag_idx')
        .on('server_tag_links')
        .columns(['tag_id', 'server_id'])
        .execute();

      await db.schema
        .createTable('server_category_links')
        .addColumn('server_id', 'text', (col) => col.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('category_id', 'text', (col) =>
          col.notNull().references('server_categories.id').onDelete('cascade'),
        )
        .addPrimaryKeyConstraint('server_category_links_pk', ['server_id', 'category_id'])
        .execute();
      await db.schema
        .createIndex('server_category_links_category_idx')
        .on('server_category_links')
        .columns(['category_id', 'server_id'])
        .execute();

      await db.schema
        .createTable('server_moderation_events')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('server_id', 'text', (col) => col.notNull().references('servers.id').onDelete('cascade'))
        // APPROVE | REJECT | SUSPEND by a moderator; RESUBMIT when the owner side edits a rejected server.
        .addColumn('action', 'text', (col) => col.notNull())
        .addColumn('from_status', 'text', (col) => col.notNull())
        .addColumn('to_status', 'text', (col) => col.notNull())
        .addColumn('reason', 'text')
        .addColumn('notes', 'text')
        // Null for RESUBMIT; a moderator whose account is deleted leaves the history intact.
        .addColumn('moderator_id', 'text', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('created_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('server_moderation_events_server_idx')
        .on('server_moderation_events')
        .columns(['server_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('server_moderation_events_moderator_idx')
        .on('server_moderation_events')
        .column('moderator_id')
        .execute();

      const now = new Date().toISOString();
      await db
        .insertInto('server_categories' as never)
        .values(
          DEFAULT_CATEGORIES.map(([name, slug, description], position) => ({
            id: newId(),
            name,
            slug,
            description,
            icon_url: null,
            usage_count: 0,
            position,
            created_at: now,
          })) as never,
        )
        .execute();
      await db
        .insertInto('server_tags' as never)
        .values(
          DEFAULT_TAGS.map(([name, slug, description]) => ({
            id: newId(),
            name,
            slug,
            description,
            usage_count: 0,
            created_at: now,
          })) as never,
        )
        .execute();
      // GET /servers and GET /server-tags read their unfiltered totals from here (DESIGN §5);
      // server_directory_version moves with every change the public directory shows (see core/http/page-cache.ts).
      await sql`insert into counters (name, value) values ('approved_servers', 0), ('server_tags', ${DEFAULT_TAGS.length}), ('server_directory_version', 0)`.execute(
        db,
      );
    },
  };
}
