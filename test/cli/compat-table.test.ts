/**
 * The compatibility table of docs/cli.md: up to date with the program's definitions, and every
 * command and flag of the spec's variant A (parsed from the spec at test time) present in the
 * program, except the gaps listed below, each with the reason it is still open. A listed gap that
 * is no longer missing fails too, so the list cannot go stale.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { buildProgram } from '../../cli/program.js'
import { commandsOf, compatRows, renderTable, TABLE_END, TABLE_START } from './compat/compat-table.js'
import { parseSpecCommands, readCliSpec } from './compat/spec-flags.js'

/**
 * Spec entries the program does not have yet (`command` or `command flag`), still open in
 * issue 22. Remove an entry when it lands.
 */
const KNOWN_GAPS = new Set<string>([])

const DOC = fileURLToPath(new URL('../../docs/cli.md', import.meta.url))
const spec = readCliSpec()

describe('compatibility table (docs/cli.md)', () => {
  it('is the one the program generates (regenerate: node --import tsx test/cli/compat/generate-compat-table.ts)', async () => {
    const doc = readFileSync(DOC, 'utf8')
    const start = doc.indexOf(TABLE_START)
    const end = doc.indexOf(TABLE_END)
    expect(start, 'docs/cli.md has no compatibility table').toBeGreaterThanOrEqual(0)
    expect(doc.slice(start, end + TABLE_END.length)).toBe(renderTable(await compatRows()))
  })

  it.skipIf(!spec)(
    'lists every command and flag of the spec (skipped: ../shared/spec/002_* not found)',
    async () => {
      const commands = parseSpecCommands(spec!)
      // The parser must have found the spec's table, or this test would pass on nothing.
      expect(commands.size).toBeGreaterThan(20)
      expect(commands.get('eval')?.length).toBeGreaterThan(30)
      const program = new Map(commandsOf(await buildProgram([])).map((c) => [c.name, c.command]))
      const missing: string[] = []
      for (const [name, flags] of commands) {
        const command = program.get(name)
        if (!command) {
          missing.push(name)
          continue
        }
        for (const flag of flags) {
          const option = command.options.find(
            (o) =>
              (flag.long !== undefined && o.long === flag.long) ||
              (flag.short !== undefined && o.short === flag.short),
          )
          // A spec flag given with both names (`-c/--config-file`) must have both here too.
          const wrongPair =
            option && flag.short && flag.long && (option.short !== flag.short || option.long !== flag.long)
          if (!option || wrongPair) missing.push(`${name} ${flag.short ?? flag.long}`)
        }
      }
      const unexpected = missing.filter((m) => !KNOWN_GAPS.has(m))
      expect(unexpected, 'spec commands/flags missing from regent').toEqual([])
      const stale = [...KNOWN_GAPS].filter((g) => !missing.includes(g))
      expect(stale, 'KNOWN_GAPS entries that are no longer missing: remove them').toEqual([])
    },
  )
})
