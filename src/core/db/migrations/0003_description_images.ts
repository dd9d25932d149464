import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

export function descriptionImages({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('description_images')
        .addColumn('id', 'text', (col) => col.primaryKey())
        // 'RESOURCE' | 'SERVER'; no foreign key: the owner's delete removes its images explicitly.
        .addColumn('owner_type', 'text', (col) => col.notNull())
        .addColumn('owner_id', 'text', (col) => col.notNull())
        .addColumn('uploader_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('storage_key', 'text', (col) => col.notNull())
        .addColumn('sha256', 'text', (col) => col.notNull())
        .addColumn('file_name', 'text', (col) => col.notNull())
        .addColumn('file_size', 'integer', (col) => col.notNull())
        .addColumn('is_temporary', 'boolean', (col) => col.notNull())
        .addColumn('is_used', 'boolean', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('description_images_owner_hash_idx')
        .on('description_images')
        .columns(['owner_type', 'owner_id', 'sha256'])
        .unique()
        .execute();
      await db.schema
        .createIndex('description_images_uploader_idx')
        .on('description_images')
        .columns(['uploader_id', 'is_temporary'])
        .execute();
      await db.schema
        .createIndex('description_images_purge_idx')
        .on('description_images')
        .columns(['is_temporary', 'created_at'])
        .execute();
    },
  };
}
