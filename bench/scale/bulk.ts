// Bulk inserts for seeding: one statement per batch of thousands of rows, the rows passed as ONE JSON
// parameter and unpacked by the database (SQLite json_each, PostgreSQL json_populate_recordset against the
// table's own row type, so every column gets its declared type). Per-row statements through Kysely cost
// ~30 µs each in the client alone, minutes at a million rows; this is one parse in the database per batch.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../src/core/db/database.js';
import type { DB } from '../../src/core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type Row = Record<string, string | number | boolean | null>;

/** Rows per statement: a few MB of JSON at most for resources with their descriptions. */
export const BULK_BATCH = 5_000;

export async function bulkInsert(
  db: Executor,
  dialect: DialectName,
  table: keyof DB & string,
  rows: readonly Row[],
  batch = BULK_BATCH,
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const columnList = sql.join(columns.map((column) => sql.ref(column)));
  for (let start = 0; start < rows.length; start += batch) {
    const json = JSON.stringify(rows.slice(start, start + batch));
    if (dialect === 'postgres') {
      await sql`insert into ${sql.table(table)} (${columnList})
        select ${columnList} from json_populate_recordset(null::${sql.table(table)}, ${json}::json)`.execute(
        db,
      );
    } else {
      const values = sql.join(columns.map((column) => sql`value ->> ${sql.lit(column)}`));
      await sql`insert into ${sql.table(table)} (${columnList}) select ${values} from json_each(${json})`.execute(
        db,
      );
    }
  }
}
