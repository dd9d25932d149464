import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * Version dependencies (spec/extensions.md §2.2). One row per declared dependency, in the order given.
 * `target_kind` keeps what the author declared (RESOURCE, VERSION, EXTERNAL) so that a target deleted later
 * leaves a row that still says what it was: its target columns become null (ON DELETE SET NULL) and the version
 * keeps the dependency, shown with null ids, instead of silently losing a REQUIRED dependency. For a VERSION
 * target, target_resource_id holds the version's resource, so "dependents of a resource" is one index lookup.
 */
export function versionDependencies({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('version_dependencies')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('version_id', 'text', (col) =>
          col.notNull().references('resource_versions.id').onDelete('cascade'),
        )
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('target_kind', 'text', (col) => col.notNull())
        .addColumn('target_resource_id', 'text', (col) => col.references('resources.id').onDelete('set null'))
        .addColumn('target_version_id', 'text', (col) =>
          col.references('resource_versions.id').onDelete('set null'),
        )
        .addColumn('external_name', 'text')
        .addColumn('external_url', 'text')
        .addColumn('min_version', 'text')
        .addColumn('position', 'integer', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .execute();
      // A version's list in order (the version object, the versions list, the tree's next level).
      await db.schema
        .createIndex('version_dependencies_version_idx')
        .on('version_dependencies')
        .columns(['version_id', 'position'])
        .execute();
      // Dependents of a resource (and the SET NULL on resource deletion).
      await db.schema
        .createIndex('version_dependencies_target_resource_idx')
        .on('version_dependencies')
        .column('target_resource_id')
        .execute();
      // The SET NULL on version deletion.
      await db.schema
        .createIndex('version_dependencies_target_version_idx')
        .on('version_dependencies')
        .column('target_version_id')
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('version_dependencies').execute();
    },
  };
}
