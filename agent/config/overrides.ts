/**
 * OPA's `--set key=value` and `--set-file key=path` overrides, applied to the raw configuration
 * before it is validated (so a bad override gets the same error naming the key as a bad file).
 * Keys are dotted paths (`decision_logs.reporting.min_delay_seconds=5`); a `\.` keeps a dot in a
 * key. `--set` values are typed as OPA's strvals types them: `true`/`false`, `null`, integers,
 * `{a,b}` lists, anything else a string. `--set-file` sets the file's text.
 */
import { readFileSync } from 'node:fs'

/** An override that cannot be applied; the message names it. */
export class OverrideError extends Error {}

/** One override as given on the command line. */
export interface Override {
  flag: '--set' | '--set-file'
  text: string
}

/** Applies the overrides in order to `config` (a plain object from YAML) and returns it. */
export function applyOverrides(
  config: Record<string, unknown>,
  overrides: readonly Override[],
): Record<string, unknown> {
  for (const { flag, text } of overrides) {
    const eq = text.indexOf('=')
    if (eq <= 0) throw new OverrideError(`${flag} ${text}: expected key=value`)
    const path = splitKey(text.slice(0, eq))
    if (path.some((k) => k === '')) throw new OverrideError(`${flag} ${text}: empty key segment`)
    const raw = text.slice(eq + 1)
    let value: unknown
    if (flag === '--set-file') {
      try {
        value = readFileSync(raw, 'utf8')
      } catch (err) {
        throw new OverrideError(`${flag} ${text}: cannot read ${raw}: ${(err as NodeJS.ErrnoException).code}`)
      }
    } else {
      value = typedValue(raw)
    }
    setAt(config, path, value, `${flag} ${text}`)
  }
  return config
}

function splitKey(key: string): string[] {
  const parts: string[] = []
  let current = ''
  for (let i = 0; i < key.length; i++) {
    const ch = key[i]!
    if (ch === '\\' && key[i + 1] === '.') {
      current += '.'
      i++
    } else if (ch === '.') {
      parts.push(current)
      current = ''
    } else current += ch
  }
  parts.push(current)
  return parts
}

function typedValue(raw: string): unknown {
  if (raw === 'true') return true
  if (raw === 'false') return false
  if (raw === 'null') return null
  if (/^-?(0|[1-9]\d{0,15})$/.test(raw)) return Number(raw)
  if (raw.startsWith('{') && raw.endsWith('}')) {
    const inner = raw.slice(1, -1)
    return inner === '' ? [] : inner.split(',').map(typedValue)
  }
  return raw
}

function setAt(root: Record<string, unknown>, path: string[], value: unknown, where: string): void {
  let node = root
  for (const key of path.slice(0, -1)) {
    const next = node[key]
    if (next === undefined || next === null) {
      const created: Record<string, unknown> = {}
      node[key] = created
      node = created
    } else if (typeof next === 'object' && !Array.isArray(next)) {
      node = next as Record<string, unknown>
    } else {
      throw new OverrideError(`${where}: ${key} is not an object in the configuration`)
    }
  }
  node[path[path.length - 1]!] = value
}
