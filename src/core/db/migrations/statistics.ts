import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * Statistics for an index a migration created, where the database has any: SQLite otherwise guesses an index
 * without them to be selective and may pick it over the indexes that serve a query (seen at 1M after ANALYZE:
 * a date-ordered search went from milliseconds to 19 s); PostgreSQL gathers the table's, expressions included.
 */
export async function analyzeNewIndex(
  db: Kysely<unknown>,
  dialect: DialectName,
  table: string,
  index: string,
): Promise<void> {
  if (dialect === 'postgres') {
    await sql`analyze ${sql.table(table)}`.execute(db);
    return;
  }
  const analyzed = await sql`select 1 from sqlite_master where name = 'sqlite_stat1'`.execute(db);
  if (analyzed.rows.length > 0) await sql`analyze ${sql.id(index)}`.execute(db);
}
