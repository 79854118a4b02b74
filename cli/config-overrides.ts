/**
 * `--set` and `--set-file` of `regent exec` (and any command reading an OPA configuration), as the
 * reference tool reads them: `--set a.b=value[,c=value]` sets dotted keys, with `true`, `false`,
 * `null` and whole numbers typed and anything else a string; `--set-file a.b=path` sets the key to
 * the file's text. Overrides apply in the order given, after the file, before validation.
 */
import { readFileSync } from 'node:fs'
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml'

/** A `--set`/`--set-file` value that cannot be applied; the message names the flag. */
export class OverrideError extends Error {}

type Tree = Record<string, unknown>

function typed(text: string): unknown {
  if (text === 'true') return true
  if (text === 'false') return false
  if (text === 'null') return null
  if (/^-?\d{1,15}$/.test(text)) return Number(text)
  return text
}

function assign(tree: Tree, key: string, value: unknown, flag: string): void {
  const parts = key.split('.')
  if (parts.some((p) => p === '' || p === '__proto__' || p === 'constructor' || p === 'prototype'))
    throw new OverrideError(`${flag} ${key}: not a dotted key such as services.acme.url`)
  let node = tree
  for (const part of parts.slice(0, -1)) {
    const next = node[part]
    if (next === undefined || next === null || typeof next !== 'object' || Array.isArray(next))
      node[part] = {}
    node = node[part] as Tree
  }
  node[parts.at(-1)!] = value
}

function pairs(text: string, flag: string, split: boolean): Array<[string, string]> {
  return (split ? text.split(',') : [text]).map((pair) => {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new OverrideError(`${flag} ${pair}: expected key=value`)
    return [pair.slice(0, eq), pair.slice(eq + 1)]
  })
}

/** `tree` (a parsed configuration, changed in place) with the overrides applied. */
export function applyOverrides(tree: Tree, sets: readonly string[], setFiles: readonly string[]): Tree {
  for (const set of sets)
    for (const [key, value] of pairs(set, '--set', true)) assign(tree, key, typed(value), '--set')
  for (const set of setFiles) {
    for (const [key, path] of pairs(set, '--set-file', false)) {
      let text: string
      try {
        text = readFileSync(path, 'utf8')
      } catch (err) {
        throw new OverrideError(
          `--set-file ${key}=${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        )
      }
      assign(tree, key, text, '--set-file')
    }
  }
  return tree
}

/**
 * The YAML text of the configuration at `file` (or an empty one) with the overrides applied, to be
 * validated as if it were the file; undefined when there is neither a file nor an override.
 */
export function configTextWithOverrides(
  file: string | undefined,
  sets: readonly string[],
  setFiles: readonly string[],
): string | undefined {
  if (file === undefined && sets.length === 0 && setFiles.length === 0) return undefined
  if (file !== undefined && sets.length === 0 && setFiles.length === 0) return readFileSync(file, 'utf8')
  const parsed = file === undefined ? {} : (parseYaml(readFileSync(file, 'utf8')) ?? {})
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw new OverrideError(`${file}: the configuration is not a mapping of keys`)
  return stringifyYaml(applyOverrides(parsed as Tree, sets, setFiles))
}
