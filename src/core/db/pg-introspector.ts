import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  PostgresDialect,
  PostgresIntrospector,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

interface ColumnRow {
  schema: string;
  table: string;
  isView: boolean;
  column: string;
  type: string;
  typeSchema: string;
  notNull: boolean;
  hasDefault: boolean;
  serial: string | null;
  comment: string | null;
}

/**
 * Tables of the connection's current schema only. Kysely's own introspector (which its Migrator calls before
 * every migration run) reads every column of every schema and resolves each table by name; a table renamed or a
 * schema dropped by another deployment or test worker while that statement runs fails it with "relation … does
 * not exist", and this instance's migration with it. The current schema is the only one this application uses.
 */
export class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;
  readonly #schemas: PostgresIntrospector;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
    this.#schemas = new PostgresIntrospector(db);
  }

  getSchemas(): Promise<SchemaMetadata[]> {
    return this.#schemas.getSchemas();
  }

  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const internal = options.withInternalKyselyTables
      ? []
      : [DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE];
    const { rows } = await sql<ColumnRow>`
      select ns.nspname as "schema", c.relname as "table", c.relkind = 'v' as "isView", a.attname as "column",
             typ.typname as "type", tns.nspname as "typeSchema", a.attnotnull as "notNull",
             a.atthasdef as "hasDefault",
             pg_get_serial_sequence(format('%I.%I', ns.nspname, c.relname), a.attname) as "serial",
             col_description(a.attrelid, a.attnum) as "comment"
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on c.oid = a.attrelid
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      join pg_catalog.pg_type typ on typ.oid = a.atttypid
      join pg_catalog.pg_namespace tns on tns.oid = typ.typnamespace
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
        and a.attnum >= 0 and not a.attisdropped
        and c.relname <> all(${internal}::text[])
      order by c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>();
    for (const row of rows) {
      let table = tables.get(row.table);
      if (table === undefined) {
        table = { name: row.table, isView: row.isView, schema: row.schema, columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.typeSchema,
        isNullable: !row.notNull,
        hasDefaultValue: row.hasDefault,
        isAutoIncrementing: row.serial !== null,
        ...(row.comment !== null ? { comment: row.comment } : {}),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<{ tables: TableMetadata[] }> {
    return { tables: await this.getTables(options) };
  }
}

/** PostgreSQL as Kysely knows it, introspecting the current schema only (see CurrentSchemaIntrospector). */
export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
