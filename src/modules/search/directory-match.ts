// Full-text conditions and relevance tiers over one document table (servers, teams, users), the same on both
// dialects. Relevance is a tier, not a native score: FTS5's bm25 and PostgreSQL's ts_rank disagree, but "every
// word matches within these fields" is answered identically by an FTS5 column filter and a weight-restricted
// tsquery. Tier 0 is an exact match of the whole name, then one tier per field group in weight order (name only,
// name + the next field, …), the last tier holds the documents that need every field. Within a tier each list
// orders by its own popularity key, then by a unique key, so pages never overlap or skip.
import { sql } from 'kysely';
import type { Kysely, RawBuilder, SqlBool, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { cappedTotal } from './capped-total.js';
import type { CappedTotal } from './capped-total.js';
import { withIndexPlansIf } from './index-plans.js';
import { ftsQuery, tsQuery } from './match.js';
import { wholeWords } from './text.js';
import type { SearchQuery } from './text.js';

export interface DocumentIndex {
  /** The document table, e.g. 'server_search'. */
  table: string;
  /** Its FTS5 table on SQLite, e.g. 'server_search_fts'. */
  fts: string;
  /** The text columns in weight order, each with its PostgreSQL weight letter (A, B, C, D). */
  columns: ReadonlyArray<{ name: string; weight: 'A' | 'B' | 'C' | 'D' }>;
  /**
   * PostgreSQL: tsvectors of the first columns alone, by how many columns each holds (servers, migration 0041):
   * a match within those columns reads that vector's GIN index, with no weight for the document to recheck.
   */
  leadingVectors?: Readonly<Partial<Record<number, string>>>;
  /**
   * PostgreSQL: the documents copied into a hash-partitioned table of (key, document) (servers, migration 0045),
   * which counts read: a capped count stops in the first partitions where one table's GIN scan listed every match.
   */
  vectors?: string;
}

/** FTS5 MATCH text, optionally restricted to some columns: `{name_text keywords_text} : ("epic" "tre"*)`. */
function ftsText(query: SearchQuery, columns?: readonly string[]): string {
  return columns === undefined ? ftsQuery(query) : `{${columns.join(' ')}} : (${ftsQuery(query)})`;
}

/**
 * True for the rows of `index.table` (under `alias`) whose document matches the query, within the first `fields`
 * columns when given. Words are letters and digits only (text.ts), and the text is a bound parameter. `terms`
 * (PostgreSQL only) is a tsquery of the document's other lexemes ANDed in the same index scan, e.g. the servers'
 * facet terms (migration 0040).
 */
export function documentMatches(
  dialect: DialectName,
  index: DocumentIndex,
  alias: string,
  query: SearchQuery,
  fields?: number,
  terms?: string,
): RawBuilder<SqlBool> {
  const columns = fields === undefined ? undefined : index.columns.slice(0, fields);
  if (dialect === 'postgres') {
    const vector = fields === undefined ? undefined : index.leadingVectors?.[fields];
    if (vector !== undefined) {
      // The vector keeps the columns' weights, which only the phrases name (match.ts tsQuery).
      const match = sql<SqlBool>`${sql.ref(`${alias}.${vector}`)} @@ to_tsquery('simple', ${tsQuery(query)})`;
      if (terms === undefined) return match;
      return sql<SqlBool>`(${match} and ${sql.ref(`${alias}.document`)} @@ ${terms}::tsquery)`;
    }
    const weights = columns === undefined ? '' : columns.map((column) => column.weight).join('');
    const words = sql`to_tsquery('simple', ${tsQuery(query, weights)})`;
    const tsquery = terms === undefined ? words : sql`(${words} && ${terms}::tsquery)`;
    return sql<SqlBool>`${sql.ref(`${alias}.document`)} @@ ${tsquery}`;
  }
  if (terms !== undefined) throw new Error('documentMatches: terms are PostgreSQL lexemes');
  const match = ftsText(
    query,
    columns?.map((column) => column.name),
  );
  return sql<SqlBool>`${sql.ref(`${alias}.doc_id`)} in (select rowid from ${sql.table(index.fts)} where ${sql.table(index.fts)} match ${match})`;
}

/**
 * The relevance tier of a matching row: 0 when `exact` holds (e.g. the name is exactly the query), then 1 for a
 * match within the first column, 2 within the first two, …, and columns.length for the rest.
 */
export function relevanceTier(
  dialect: DialectName,
  index: DocumentIndex,
  alias: string,
  query: SearchQuery,
  exact: RawBuilder<SqlBool>,
): RawBuilder<number> {
  const tiers = index.columns
    .slice(0, -1)
    .map(
      (_column, position) =>
        sql`when ${documentMatches(dialect, index, alias, query, position + 1)} then ${sql.lit(position + 1)}`,
    );
  return sql<number>`case when ${exact} then 0 ${sql.join(tiers, sql` `)} else ${sql.lit(index.columns.length)} end`;
}

/** One row per document matching the query, from the full-text index alone on SQLite. */
function matchingRows(dialect: DialectName, index: DocumentIndex, query: SearchQuery) {
  // PostgreSQL reads the documents' partitioned copies where the index has them.
  const documents = sql.table(index.vectors ?? index.table);
  return dialect === 'postgres'
    ? sql`select 1 from ${documents} where document @@ to_tsquery('simple', ${tsQuery(query)})`
    : sql`select rowid from ${sql.table(index.fts)} where ${sql.table(index.fts)} match ${ftsQuery(query)}`;
}

/**
 * The number of documents matching the query, up to `cap` when given. SQLite counts in the FTS index alone
 * (reading the wide document rows would cost a page read per match: measured 2 ms against 340 ms for 38k
 * matches among 180k servers). PostgreSQL counts a capped count from the GIN index (index-plans.ts): for a
 * word in 17% of 180k servers the planner scanned the table, reading each row's document, 236–348 ms against
 * 18–82 ms.
 */
async function countRows(
  db: Kysely<DB> | Transaction<DB>,
  dialect: DialectName,
  index: DocumentIndex,
  query: SearchQuery,
  cap?: number,
): Promise<number> {
  const limit = cap === undefined ? sql`` : sql` limit ${cap + 1}`;
  const count = sql<{ count: string | number }>`select count(*) as count
    from (${matchingRows(dialect, index, query)}${limit}) m`;
  // Only a LIMIT makes the scan look cheap to the planner (it expects to stop early); an uncapped count (teams)
  // is planned on the index anyway and would pay the transaction's round trips for nothing.
  const { rows } = await withIndexPlansIf(cap !== undefined, db, dialect, (read) => count.execute(read));
  return Number(rows[0]?.count ?? 0);
}

/** The number of documents matching the query. */
export const countMatches = (
  db: Kysely<DB> | Transaction<DB>,
  dialect: DialectName,
  index: DocumentIndex,
  query: SearchQuery,
): Promise<number> => countRows(db, dialect, index, query);

/**
 * countMatches up to `cap` (past it `exact` is false and `total` the cap, a lower bound). SQLite first counts the
 * words taken whole, a subset, streamed: FTS5 merges every word under a prefix before it yields a match
 * (`"trees"*` over 180k servers: 285 ms).
 */
export async function countMatchesUpTo(
  db: Kysely<DB> | Transaction<DB>,
  dialect: DialectName,
  index: DocumentIndex,
  query: SearchQuery,
  cap: number,
): Promise<CappedTotal> {
  const whole = dialect === 'sqlite' ? wholeWords(query) : undefined;
  if (whole !== undefined) {
    const subset = await countMatchesUpTo(db, dialect, index, whole, cap);
    if (!subset.exact) return subset;
  }
  return cappedTotal(await countRows(db, dialect, index, query, cap), cap);
}

/** The query's words as stored text: equal to a name_text when the name is exactly what was asked. */
export const queryText = (query: SearchQuery): string => query.terms.join(' ');
