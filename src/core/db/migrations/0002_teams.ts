import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

export function teams({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('teams')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('slug', 'text', (col) => col.notNull().unique())
        .addColumn('description', 'text')
        .addColumn('logo_key', 'text')
        .addColumn('banner_key', 'text')
        // No cascade: an account that still owns a team cannot disappear from under it.
        .addColumn('owner_id', 'text', (col) => col.notNull().references('users.id'))
        .addColumn('member_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('resource_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('server_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .execute();
      // The unique constraint on slug already is the slug index.
      await db.schema.createIndex('teams_created_at_idx').on('teams').columns(['created_at', 'id']).execute();
      await db.schema.createIndex('teams_name_idx').on('teams').column('name').execute();
      await db.schema.createIndex('teams_owner_id_idx').on('teams').column('owner_id').execute();

      await db.schema
        .createTable('team_members')
        // Cascades are a safety net: a membership or invitation row never outlives its team or user.
        .addColumn('team_id', 'text', (col) => col.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
        .execute();
      await db.schema.createIndex('team_members_user_id_idx').on('team_members').column('user_id').execute();

      await db.schema
        .createTable('team_invitations')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('team_id', 'text', (col) => col.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('invited_by', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('expires_at', ts, (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('responded_at', ts)
        .execute();
      await db.schema
        .createIndex('team_invitations_team_status_idx')
        .on('team_invitations')
        .columns(['team_id', 'status'])
        .execute();
      await db.schema
        .createIndex('team_invitations_user_status_idx')
        .on('team_invitations')
        .columns(['user_id', 'status'])
        .execute();
      await db.schema
        .createIndex('team_invitations_invited_by_idx')
        .on('team_invitations')
        .column('invited_by')
        .execute();
      // At most one PENDING invitation per team and user, even when two admins invite at the same moment.
      await db.schema
        .createIndex('team_invitations_one_pending_idx')
        .on('team_invitations')
        .columns(['team_id', 'user_id'])
        .unique()
        .where(sql.ref('status'), '=', 'PENDING')
        .execute();

      await db.schema
        .createTable('counters')
        .addColumn('name', 'text', (col) => col.primaryKey())
        .addColumn('value', 'integer', (col) => col.notNull())
        .execute();
      await sql`insert into counters (name, value) values ('teams', 0)`.execute(db);
    },
  };
}
