import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

export function accounts({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('username', 'text', (col) => col.notNull())
        .addColumn('username_key', 'text', (col) => col.notNull().unique())
        .addColumn('email', 'text', (col) => col.notNull().unique())
        .addColumn('password_hash', 'text')
        .addColumn('display_name', 'text')
        .addColumn('bio', 'text')
        .addColumn('location', 'text')
        .addColumn('website', 'text')
        .addColumn('image_key', 'text')
        .addColumn('banner_key', 'text')
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('suspended_until', ts)
        .addColumn('follower_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('following_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('users_role_idx').on('users').column('role').execute();
      await db.schema.createIndex('users_status_idx').on('users').column('status').execute();
      await db.schema.createIndex('users_created_at_idx').on('users').column('created_at').execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('prefix', 'text', (col) => col.notNull())
        .addColumn('key_hash', 'text', (col) => col.notNull().unique())
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('last_used_at', ts)
        .addColumn('expires_at', ts)
        .addColumn('revoked_at', ts)
        .execute();
      await db.schema.createIndex('api_keys_user_id_idx').on('api_keys').column('user_id').execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (col) => col.notNull().unique())
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('expires_at', ts, (col) => col.notNull())
        .addColumn('last_used_at', ts)
        .addColumn('revoked_at', ts)
        .execute();
      await db.schema.createIndex('sessions_user_id_idx').on('sessions').column('user_id').execute();
      await db.schema.createIndex('sessions_expires_at_idx').on('sessions').column('expires_at').execute();

      await db.schema
        .createTable('follows')
        .addColumn('follower_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('following_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', ts, (col) => col.notNull())
        .addPrimaryKeyConstraint('follows_pk', ['follower_id', 'following_id'])
        .execute();
      await db.schema
        .createIndex('follows_following_idx')
        .on('follows')
        .columns(['following_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('follows_follower_idx')
        .on('follows')
        .columns(['follower_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('social_links')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('owner_type', 'text', (col) => col.notNull())
        .addColumn('owner_id', 'text', (col) => col.notNull())
        .addColumn('platform', 'text', (col) => col.notNull())
        .addColumn('url', 'text', (col) => col.notNull())
        .addColumn('position', 'integer', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('social_links_owner_idx')
        .on('social_links')
        .columns(['owner_type', 'owner_id', 'position'])
        .execute();
    },
  };
}
