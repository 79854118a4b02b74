/**
 * Reads the command/flag list of the CLI spec (`../shared/spec/002_*`) at test time, so the
 * compatibility table is checked against the spec without a copy of the spec in the repository.
 * Only variant A matters (regent is the full executable): flags marked `B:` are left out.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** One flag of one command, as the spec names it (`-b`, `--count`, or both). */
export interface SpecFlag {
  command: string
  short?: string
  long?: string
}

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** The spec folder: REGENT_SPEC_DIR, else `../shared/spec` beside the checkout; undefined if absent. */
export function specDir(): string | undefined {
  const candidates = [process.env.REGENT_SPEC_DIR, resolve(REPO_ROOT, '../shared/spec')]
  return candidates.find((d): d is string => d !== undefined && existsSync(d))
}

/** The text of the CLI spec document (the file whose name starts with `002_`), or undefined. */
export function readCliSpec(dir = specDir()): string | undefined {
  if (!dir) return undefined
  const name = readdirSync(dir).find((f) => f.startsWith('002_'))
  return name ? readFileSync(join(dir, name), 'utf8') : undefined
}

/** Splits on `,` and `;` outside brackets and parentheses (`-f {a,b} (x; y)` stays one item). */
function splitItems(text: string): string[] {
  const items: string[] = []
  let depth = 0
  let current = ''
  for (const ch of text) {
    if (ch === '(' || ch === '{' || ch === '[') depth++
    if (ch === ')' || ch === '}' || ch === ']') depth--
    if ((ch === ',' || ch === ';') && depth === 0) {
      items.push(current)
      current = ''
    } else current += ch
  }
  items.push(current)
  return items.map((s) => s.trim()).filter((s) => s !== '')
}

const FLAG = /^(-[A-Za-z])(?:\/(--[\w-]+))?|^(--[\w-]+)/

function flagsOf(command: string, text: string): SpecFlag[] {
  const flags: SpecFlag[] = []
  for (let item of splitItems(text)) {
    item = item.replace(/^\[A only\]\s*/, '').replace(/^A:\s*/, '')
    if (item.startsWith('B:')) continue // variant B only
    const m = FLAG.exec(item)
    if (!m) continue // prose such as "plus the same service-connection flags"
    flags.push(m[3] ? { command, long: m[3] } : { command, short: m[1], long: m[2] })
  }
  return flags
}

/** Every command the spec lists (variant A), with its flags. */
export function parseSpecCommands(spec: string): Map<string, SpecFlag[]> {
  const commands = new Map<string, SpecFlag[]>()
  const add = (name: string, flagText: string) => commands.set(name, flagsOf(name, flagText))
  for (const line of spec.split('\n')) {
    const row = /^\|\s*([a-z][a-z ]*?)(?:\s+[<[].*?)?\s*\|[^|]*\|([^|]*)\|\s*$/.exec(line)
    if (row && row[1] !== 'Command' && row[1] !== 'Setting') {
      add(row[1]!, row[2]!)
      continue
    }
    const run = /^\*\*run flags:\*\*(.*)$/.exec(line)
    if (run) {
      add('run', run[1]!.replace(/\.\s*$/, ''))
      continue
    }
    const aOnly = /^- ([a-z][a-z ]*?)(?:\s+<[^:]*)?: (?:.*?[.:] )?[Ff]lags:? (.*)$/.exec(line)
    if (aOnly) add(aOnly[1]!, aOnly[2]!.replace(/\.\s*$/, '').replace(/\. An .*$/, ''))
    else {
      const bare = /^- (login|pull|license trial|impact record): /.exec(line)
      if (bare) add(bare[1]!, '')
    }
  }
  return commands
}
