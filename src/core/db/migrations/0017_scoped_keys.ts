import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * Scoped, checkable API keys (spec/extensions.md §5): each key's scopes (space-separated; existing keys get every
 * scope, cut down at each request to what the owner's role allows, so they keep working as before), an optional
 * team the key is bound to (deleted with the team), and the address it was last used from.
 */
export function scopedKeys(_context: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('api_keys')
        .addColumn('scopes', 'text', (col) => col.notNull().defaultTo('read write upload moderate admin'))
        .execute();
      await db.schema
        .alterTable('api_keys')
        .addColumn('team_id', 'text', (col) => col.references('teams.id').onDelete('cascade'))
        .execute();
      await db.schema.alterTable('api_keys').addColumn('last_used_ip', 'text').execute();
      // The cascade on a team's deletion finds its keys by index.
      await db.schema.createIndex('api_keys_team_id_idx').on('api_keys').column('team_id').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('api_keys_team_id_idx').execute();
      await db.schema.alterTable('api_keys').dropColumn('last_used_ip').execute();
      await db.schema.alterTable('api_keys').dropColumn('team_id').execute();
      await db.schema.alterTable('api_keys').dropColumn('scopes').execute();
    },
  };
}
