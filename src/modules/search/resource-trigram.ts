// pg_trgm for typo tolerance on PostgreSQL. The extension is database-wide while every deployment (and every test
// app) lives in a schema of its own: created in a schema of its own (`extensions`), so that dropping a deployment's
// schema never drops it under the others, and found at run time wherever it actually is (an existing install may
// have it in `public`). Its operators and functions are always named with that schema. Operators without the
// right to create it (pg_trgm is trusted: CREATE on the database is enough) simply get no typo tolerance.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

const EXTENSION_SCHEMA = 'extensions';
const UNIQUE_VIOLATION = '23505';

/** The schema pg_trgm lives in, or null when it is not installed. */
export async function trigramSchema(db: Kysely<unknown>): Promise<string | null> {
  const result = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'pg_trgm'`.execute(db);
  return result.rows[0]?.schema ?? null;
}

/**
 * Installs pg_trgm if it can (inside the caller's transaction, behind a savepoint so a refusal does not abort
 * it) and returns its schema, or null. Two first migrations at once race on the catalog's unique keys: the
 * loser retries and finds the winner's extension.
 */
export async function installTrigram(db: Kysely<unknown>): Promise<string | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    await sql`savepoint install_trigram`.execute(db);
    try {
      if ((await trigramSchema(db)) === null) {
        await sql`create schema if not exists ${sql.id(EXTENSION_SCHEMA)}`.execute(db);
        await sql`create extension if not exists pg_trgm with schema ${sql.id(EXTENSION_SCHEMA)}`.execute(db);
      }
      await sql`release savepoint install_trigram`.execute(db);
      return await trigramSchema(db);
    } catch (error) {
      await sql`rollback to savepoint install_trigram`.execute(db);
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) return null;
    }
  }
  return null;
}

/** Whether typo tolerance can run in the current schema: the extension and the name-word index both exist. */
export async function trigramIndexSchema(db: Kysely<unknown>): Promise<string | null> {
  const schema = await trigramSchema(db);
  if (schema === null) return null;
  const index = await sql<{ found: number }>`
    select 1 as found from pg_indexes
    where schemaname = current_schema() and indexname = 'resource_name_words_trgm_idx'`.execute(db);
  return index.rows.length > 0 ? schema : null;
}
