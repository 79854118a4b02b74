/**
 * `-s/--schema` of `check` and `eval`: the JSON Schema of `input` that the type checker reads
 * (OPA's single-file form, which applies to every rule). A directory of schemas mapped by `# METADATA schemas:`
 * annotations is OPA's other form; regent does not read it yet and says so.
 */
import { readFile, stat } from 'node:fs/promises'
import { type Type, typeFromJsonSchema } from '../core/rego/types/index.js'

/** The type of `input` the schema at `path` describes. Throws an Error with a message to print. */
async function inputTypeFromSchemaFile(path: string): Promise<Type> {
  const info = await stat(path).catch(() => undefined)
  if (!info) throw new Error(`schema ${path}: no such file`)
  if (info.isDirectory())
    throw new Error(
      `schema ${path}: schema directories (schemas chosen by METADATA annotations) are not supported; pass the input schema file`,
    )
  let schema: unknown
  try {
    schema = JSON.parse(await readFile(path, 'utf8'))
  } catch (err) {
    throw new Error(`schema ${path}: not JSON (${err instanceof Error ? err.message : String(err)})`)
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new Error(`schema ${path}: a JSON Schema is an object`)
  return typeFromJsonSchema(schema)
}

/** The compile options `-s <path>` adds: none without a schema. */
export async function schemaCompileOptions(path: string | undefined): Promise<{ inputType?: Type }> {
  return path === undefined ? {} : { inputType: await inputTypeFromSchemaFile(path) }
}
