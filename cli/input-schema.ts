/**
 * `-s/--schema` of `check`, `eval` and `bench`, as OPA's loader.Schemas reads it: a file is the
 * JSON Schema of `input` for every rule (and the schema `schema` itself); a directory is a schema
 * set, every file under it filed by its path without the extension (`DIR/k8s/pod.json` is
 * `schema.k8s.pod`), for the `# METADATA schemas:` annotations to name.
 */
import { readFile, stat } from 'node:fs/promises'
import { basename, extname, relative, sep } from 'node:path'
import { filesUnder } from '../core/bundle/policy-files.js'
import { SchemaSet, type Type, typeFromJsonSchema } from '../core/rego/types/index.js'

/** What `-s` adds to the compile options. */
export interface SchemaOptions {
  inputType?: Type
  schemas?: SchemaSet
}

/** The JSON document in the file at `path`. Throws an Error with a message to print. */
async function readSchema(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'))
  } catch (err) {
    throw new Error(`schema ${path}: not JSON (${err instanceof Error ? err.message : String(err)})`)
  }
}

/** The schema set of a directory: each file under its path, without the extension, after `schema`. */
async function schemaSetOf(dir: string): Promise<SchemaSet> {
  const set = new SchemaSet()
  for (const file of await filesUnder([dir], () => true)) {
    const parts = relative(dir, file).split(sep)
    const last = parts.pop() ?? ''
    parts.push(basename(last, extname(last)))
    set.put(parts, await readSchema(file))
  }
  return set
}

/**
 * The compile options `-s <path>` adds. `annotations` asks for the `# METADATA schemas:`
 * annotations to be applied without `-s` too (`regent check`, as `opa check` always does; a schema
 * ref then names nothing).
 */
export async function schemaCompileOptions(
  path: string | undefined,
  annotations = false,
): Promise<SchemaOptions> {
  if (path === undefined) return annotations ? { schemas: new SchemaSet() } : {}
  const info = await stat(path).catch(() => undefined)
  if (!info) throw new Error(`schema ${path}: no such file`)
  if (info.isDirectory()) return { schemas: await schemaSetOf(path) }
  const schema = await readSchema(path)
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new Error(`schema ${path}: a JSON Schema is an object`)
  return { inputType: typeFromJsonSchema(schema), schemas: new SchemaSet().put([], schema) }
}
