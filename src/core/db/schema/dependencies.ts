// Version dependencies (spec/extensions.md §2.2).
// Row types as Kysely sees them; ../schema.ts merges the tables below into DB. Owned by the dependencies work.

export type DependencyTypeColumn = 'REQUIRED' | 'OPTIONAL' | 'INCOMPATIBLE' | 'EMBEDDED';
/** What the author declared; the target columns may have become null since (target deleted). */
export type DependencyTargetKind = 'RESOURCE' | 'VERSION' | 'EXTERNAL';

export interface VersionDependenciesTable {
  id: string;
  /** The version that declares the dependency. */
  version_id: string;
  type: DependencyTypeColumn;
  target_kind: DependencyTargetKind;
  /** RESOURCE: the target; VERSION: the target version's resource; EXTERNAL: null. */
  target_resource_id: string | null;
  /** VERSION only. */
  target_version_id: string | null;
  /** EXTERNAL only. */
  external_name: string | null;
  external_url: string | null;
  min_version: string | null;
  /** The order the author gave, from 0. */
  position: number;
  created_at: string;
}

/** Table name → row type, merged into DB. */
export interface DependencyTables {
  version_dependencies: VersionDependenciesTable;
}
