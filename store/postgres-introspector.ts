/**
 * PostgreSQL table introspection limited to the schemas on the connection's search path.
 *
 * Kysely's migrator asks the introspector whether its own tables exist before every run. Kysely's
 * own PostgreSQL introspector lists every table of every schema in the database and, per row,
 * looks the schema up again by name (`has_schema_privilege(nspname, …)`,
 * `pg_get_serial_sequence('schema.table', …)`). When another client drops a schema while that
 * query runs, the catalog scan still sees it and the lookup by name fails with `schema "…" does
 * not exist`, so the service's start-up migration failed because of an unrelated schema (seen in
 * CI, where test suites drop their schemas while others start; about one call in twenty under
 * schema churn). This one reads only catalog rows, never names, and only the schemas the service
 * works in (`current_schemas(false)`: the configured schema, or the default search path).
 */
import {
  type ColumnMetadata,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  PostgresDialect,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely'

interface ColumnRow {
  schema: string
  table: string
  table_kind: string
  column: string
  type: string
  type_schema: string
  not_null: boolean
  has_default: boolean
  auto_incrementing: boolean
  comment: string | null
}

export class SearchPathIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(
      this.db,
    )
    return rows
  }

  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const internal = options.withInternalKyselyTables
      ? sql``
      : sql`and c.relname not in (${DEFAULT_MIGRATION_TABLE}, ${DEFAULT_MIGRATION_LOCK_TABLE})`
    // A column auto-increments when it is an identity column or owns a sequence (serial).
    const { rows } = await sql<ColumnRow>`
      select ns.nspname as schema, c.relname as table, c.relkind as table_kind, a.attname as column,
        typ.typname as type, typns.nspname as type_schema, a.attnotnull as not_null,
        a.atthasdef as has_default, col_description(a.attrelid, a.attnum) as comment,
        (a.attidentity <> '' or exists (
          select 1 from pg_catalog.pg_depend dep
          join pg_catalog.pg_class seq on seq.oid = dep.objid and seq.relkind = 'S'
          where dep.refobjid = c.oid and dep.refobjsubid = a.attnum and dep.deptype in ('a', 'i')
        )) as auto_incrementing
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid
      join pg_catalog.pg_type typ on typ.oid = a.atttypid
      join pg_catalog.pg_namespace typns on typns.oid = typ.typnamespace
      where ns.nspname = any (current_schemas(false))
        and c.relkind in ('r', 'v', 'p') and a.attnum > 0 and not a.attisdropped ${internal}
      order by ns.nspname, c.relname, a.attnum`.execute(this.db)
    return tablesOf(rows)
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) }
  }
}

/** Groups column rows (ordered by schema and table) into tables. */
function tablesOf(rows: ColumnRow[]): TableMetadata[] {
  const tables: { name: string; schema: string; isView: boolean; columns: ColumnMetadata[] }[] = []
  for (const row of rows) {
    let table = tables.at(-1)
    if (table?.name !== row.table || table.schema !== row.schema) {
      table = { name: row.table, schema: row.schema, isView: row.table_kind === 'v', columns: [] }
      tables.push(table)
    }
    table.columns.push({
      name: row.column,
      dataType: row.type,
      dataTypeSchema: row.type_schema,
      isNullable: !row.not_null,
      hasDefaultValue: row.has_default,
      isAutoIncrementing: row.auto_incrementing,
      ...(row.comment === null ? {} : { comment: row.comment }),
    })
  }
  return tables
}

/** Kysely's PostgreSQL dialect with the search-path introspector. */
export class SearchPathPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SearchPathIntrospector(db)
  }
}
