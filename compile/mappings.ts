/**
 * Table and column mappings (`options.targetSQLTableMappings`): the names a policy reads
 * (`input.fruits.name`) renamed to the application's schema (`FRUIT.NAME`), per target or dialect.
 *
 * A mapping object maps table names: `{"fruits": {"$self": "FRUIT", "name": "NAME"}}` renames the table
 * and a column; `{"name": {"$table": "fruits"}}` makes the short ref `input.name` mean `fruits.name`.
 */
import { isLosslessNumber } from 'lossless-json'
import { internalFailure } from './errors.js'
import type { Target } from './types.js'

/** A selected mapping object: table (or short) name to its entry. */
export type TableMappings = Readonly<Record<string, unknown>>

/**
 * The mappings that apply to `target`: the entry under its dialect or variant (`postgresql`, `prisma`)
 * if that is an object, else the one under the target kind (`sql`, `ucast`), else the whole object as a
 * flat mapping.
 * @throws CompileFailure 500 `mappings: invalid mappings for dialect X` (or `target X`) when the chosen
 *   entry is present but not an object.
 */
export function lookupMappings(all: unknown, target: Target): TableMappings | undefined {
  if (!isObject(all)) return undefined
  const dialect = target.variant
  const byDialect = all[dialect]
  if (isObject(byDialect)) return byDialect
  if (byDialect !== undefined && byDialect !== null) {
    throw internalFailure(`mappings: invalid mappings for dialect ${dialect}`)
  }
  const byTarget = all[target.kind]
  if (isObject(byTarget)) return byTarget
  if (byTarget !== undefined && byTarget !== null) {
    throw internalFailure(`mappings: invalid mappings for target ${target.kind}`)
  }
  return all
}

/**
 * The translated name of field `table.column` (or of a short name): `$table` resolves a short name,
 * `$self` renames the table, a string under the column's name renames the column. Entries that are not
 * objects and values that are not strings are ignored.
 * @example translateField('fruits.name', {fruits: {$self: 'FRUIT', name: 'NAME'}}) // 'FRUIT.NAME'
 */
export function translateField(field: string, mappings: TableMappings | undefined): string {
  if (!mappings) return field
  const dot = field.indexOf('.')
  let table = dot < 0 ? field : field.slice(0, dot)
  let column = dot < 0 ? '' : field.slice(dot + 1)
  let qualified = dot >= 0
  let outTable = table
  const shortEntry = mappings[table]
  if (isObject(shortEntry) && typeof shortEntry.$table === 'string') {
    // `input.name` with {"name": {"$table": "fruits"}} reads as `fruits.name`.
    column = table
    table = shortEntry.$table
    outTable = table
    qualified = true
  }
  let outColumn = column
  const entry = mappings[table]
  if (isObject(entry)) {
    if (typeof entry.$self === 'string') outTable = entry.$self
    const renamed = qualified ? entry[column] : undefined
    if (typeof renamed === 'string') outColumn = renamed
  }
  return qualified ? `${outTable}.${outColumn}` : outTable
}

/**
 * Short names the fragment checks accept as two-part refs (`input.name`): every key whose entry has a
 * `$table`, found one level down (under any target or dialect key) in the request's mappings.
 */
export function shortNames(all: unknown): Set<string> {
  const names = new Set<string>()
  if (!isObject(all)) return names
  for (const perTarget of Object.values(all)) {
    if (!isObject(perTarget)) continue
    for (const [name, entry] of Object.entries(perTarget)) {
      if (isObject(entry) && entry.$table !== undefined) names.add(name)
    }
  }
  return names
}

// JSON objects only: numbers from the body are `LosslessNumber` objects and must not count.
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value)
}
