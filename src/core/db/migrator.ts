// One portable migration set, listed in code (no directory scanning) so it works from tsx and from dist alike.
import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { DialectName } from './database.js';
import type { DB } from './schema.js';
import { timestampType } from './dialect.js';
import { accounts } from './migrations/0001_accounts.js';
import { descriptionImages } from './migrations/0003_description_images.js';
import { teams } from './migrations/0002_teams.js';
import { resources } from './migrations/0004_resources.js';
import { servers } from './migrations/0005_servers.js';
import { reportsBadges } from './migrations/0006_reports_badges.js';
import { versions } from './migrations/0007_versions.js';
import { maintenance } from './migrations/0008_maintenance.js';
import { events } from './migrations/0009_events.js';
import { serverKeys } from './migrations/0010_server_keys.js';
import { serverHistory } from './migrations/0011_server_history.js';
import { serverVotes } from './migrations/0012_server_votes.js';
import { serverRank } from './migrations/0013_server_rank.js';
import { moderationQueue } from './migrations/0014_moderation_queue.js';
import { moderationThreads } from './migrations/0015_moderation_threads.js';
import { auditTrusted } from './migrations/0016_audit_trusted.js';
import { scopedKeys } from './migrations/0017_scoped_keys.js';
import { fileHashes } from './migrations/0018_file_hashes.js';
import { versionDependencies } from './migrations/0019_version_dependencies.js';
import { fileInspection } from './migrations/0020_file_inspection.js';
import { fileDuplicates } from './migrations/0021_file_duplicates.js';
import { fileScans } from './migrations/0022_file_scans.js';
import { idempotencyKeys } from './migrations/0023_idempotency_keys.js';
import { resourceSearch } from './migrations/0024_resource_search.js';
import { directorySearch } from './migrations/0025_directory_search.js';
import { typeSortIndexes } from './migrations/0026_type_sort_indexes.js';
import { resourceNameWords } from './migrations/0027_resource_name_words.js';
import { relevanceIndexes } from './migrations/0028_relevance_indexes.js';
import { tagLinkTypes } from './migrations/0029_tag_link_types.js';
import { documentFacetTerms } from './migrations/0030_document_facet_terms.js';
import { ftsFacetTerms } from './migrations/0031_fts_facet_terms.js';
import { ftsLongerPrefixes } from './migrations/0032_fts_longer_prefixes.js';
import { documentPrefixTerms } from './migrations/0033_document_prefix_terms.js';
import { resourceSearchVectors } from './migrations/0034_resource_search_vectors.js';
import { resourceFacetCodes } from './migrations/0035_resource_facet_codes.js';
import { resourceFieldsFts } from './migrations/0036_resource_fields_fts.js';
import { documentFacetCodes } from './migrations/0037_document_facet_codes.js';
import { vectorIdsInline } from './migrations/0038_vector_ids_inline.js';
import { serverDocumentsNarrow } from './migrations/0039_server_documents_narrow.js';
import { serverFacetTerms } from './migrations/0040_server_facet_terms.js';
import { serverRelevanceTiers } from './migrations/0041_server_relevance_tiers.js';
import { popularityIndexOnly } from './migrations/0042_popularity_index_only.js';
import { resourceHeadWords } from './migrations/0043_resource_head_words.js';
import { resourceSearchNames } from './migrations/0044_resource_search_names.js';
import { serverSearchVectors } from './migrations/0045_server_search_vectors.js';
import { tagLinkSortKeys } from './migrations/0046_tag_link_sort_keys.js';

export interface MigrationContext {
  dialect: DialectName;
  /** Column type for timestamps on this dialect. */
  ts: 'timestamptz' | 'text';
}

type MigrationFactory = (context: MigrationContext) => Migration;

/** Append only. Names sort in order of application. */
const MIGRATIONS: Record<string, MigrationFactory> = {
  '0001_accounts': accounts,
  '0002_teams': teams,
  '0003_description_images': descriptionImages,
  '0004_resources': resources,
  '0005_servers': servers,
  '0006_reports_badges': reportsBadges,
  '0007_versions': versions,
  '0008_maintenance': maintenance,
  '0009_events': events,
  '0010_server_keys': serverKeys,
  '0011_server_history': serverHistory,
  '0012_server_votes': serverVotes,
  '0013_server_rank': serverRank,
  '0014_moderation_queue': moderationQueue,
  '0015_moderation_threads': moderationThreads,
  '0016_audit_trusted': auditTrusted,
  '0017_scoped_keys': scopedKeys,
  '0018_file_hashes': fileHashes,
  '0019_version_dependencies': versionDependencies,
  '0020_file_inspection': fileInspection,
  '0021_file_duplicates': fileDuplicates,
  '0022_file_scans': fileScans,
  '0023_idempotency_keys': idempotencyKeys,
  '0024_resource_search': resourceSearch,
  '0025_directory_search': directorySearch,
  '0026_type_sort_indexes': typeSortIndexes,
  '0027_resource_name_words': resourceNameWords,
  '0028_relevance_indexes': relevanceIndexes,
  '0029_tag_link_types': tagLinkTypes,
  '0030_document_facet_terms': documentFacetTerms,
  '0031_fts_facet_terms': ftsFacetTerms,
  '0032_fts_longer_prefixes': ftsLongerPrefixes,
  '0033_document_prefix_terms': documentPrefixTerms,
  '0034_resource_search_vectors': resourceSearchVectors,
  '0035_resource_facet_codes': resourceFacetCodes,
  '0036_resource_fields_fts': resourceFieldsFts,
  '0037_document_facet_codes': documentFacetCodes,
  '0038_vector_ids_inline': vectorIdsInline,
  '0039_server_documents_narrow': serverDocumentsNarrow,
  '0040_server_facet_terms': serverFacetTerms,
  '0041_server_relevance_tiers': serverRelevanceTiers,
  '0042_popularity_index_only': popularityIndexOnly,
  '0043_resource_head_words': resourceHeadWords,
  '0044_resource_search_names': resourceSearchNames,
  '0045_server_search_vectors': serverSearchVectors,
  '0046_tag_link_sort_keys': tagLinkSortKeys,
};

class CodeMigrationProvider implements MigrationProvider {
  constructor(private readonly context: MigrationContext) {}

  getMigrations(): Promise<Record<string, Migration>> {
    const built: Record<string, Migration> = {};
    for (const [name, factory] of Object.entries(MIGRATIONS)) built[name] = factory(this.context);
    return Promise.resolve(built);
  }
}

async function createMigrator(db: Kysely<DB>, dialect: DialectName): Promise<Migrator> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one: pin it to the current
  // schema, or a second deployment (or test schema) in the same database would find the first one's tables.
  const schema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  return new Migrator({
    db: db as unknown as Kysely<unknown>,
    ...(schema !== undefined ? { migrationTableSchema: schema } : {}),
    provider: new CodeMigrationProvider({ dialect, ts: timestampType(dialect) }),
  });
}

/** Every migration this build knows, with when it was applied (null: pending). For `cli migrate --status`. */
export async function migrationStatus(
  db: Kysely<DB>,
  dialect: DialectName,
): Promise<{ name: string; appliedAt: string | null }[]> {
  const migrations = await (await createMigrator(db, dialect)).getMigrations();
  return migrations.map((migration) => ({
    name: migration.name,
    appliedAt: migration.executedAt?.toISOString() ?? null,
  }));
}

export async function migrateToLatest(db: Kysely<DB>, dialect: DialectName): Promise<string[]> {
  const migrator = await createMigrator(db, dialect);
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}

/** The name of the newest migration this build knows. */
export const LATEST_MIGRATION = Object.keys(MIGRATIONS).at(-1)!;

/**
 * True when the newest migration is recorded as applied. /ready uses it: an empty or older database answers
 * every request with errors, so the process must not be declared ready on it (MIGRATE=false deployments).
 * Throws when the database cannot be reached or has no migration table.
 */
export async function isFullyMigrated(db: Kysely<DB>): Promise<boolean> {
  const rows = await sql<{
    name: string;
  }>`select name from kysely_migration where name = ${LATEST_MIGRATION}`.execute(db);
  return rows.rows.length === 1;
}
