/** SQL rendering per dialect: `renderSql(node, 'postgresql')`. */
import type { SqlDialect } from '../types.js'
import type { UcastNode } from '../ucast.js'
import { renderWhere, type SqlDialectRules } from './core.js'
import { mysql } from './mysql.js'
import { postgresql } from './postgresql.js'
import { sqlite, sqliteInternal } from './sqlite.js'
import { sqlserver } from './sqlserver.js'

export { literal, renderCondition, renderWhere, type SqlDialectRules, SqlRenderError } from './core.js'

/** Every dialect's rules by name. */
export const SQL_DIALECTS: Readonly<Record<SqlDialect, SqlDialectRules>> = {
  postgresql,
  mysql,
  sqlserver,
  sqlite,
  'sqlite-internal': sqliteInternal,
}

/**
 * The `WHERE` clause of a UCAST condition in `dialect` ('' for no condition).
 * @throws SqlRenderError when the tree has no SQL form.
 */
export function renderSql(node: UcastNode | undefined, dialect: SqlDialect): string {
  return renderWhere(node, SQL_DIALECTS[dialect])
}
