/**
 * Every command's help shows each option's default once: commander's `(default: …)` is dropped
 * where the description states the default itself, and empty repeatable lists show none.
 */
import type { Command } from 'commander'
import { describe, expect, it } from 'vitest'
import { STATES_DEFAULT } from '../../cli/help.js'
import { buildProgram } from '../../cli/program.js'
import { runRegent } from '../support/run-cli.js'

/** Every command of the tree with its path (`regent relay logs status`). */
function allCommands(command: Command, path = command.name()): Array<[string, Command]> {
  return [[path, command], ...command.commands.flatMap((sub) => allCommands(sub, `${path} ${sub.name()}`))]
}

describe('help texts', () => {
  it('show at most one default per option, in every command', async () => {
    const commands = allCommands(await buildProgram())
    expect(commands.length).toBeGreaterThan(20)
    const doubled: string[] = []
    let options = 0
    for (const [path, command] of commands) {
      const help = command.createHelp()
      for (const option of help.visibleOptions(command)) {
        options++
        const text = help.optionDescription(option)
        const defaults = text.match(STATES_DEFAULT) ?? []
        if (defaults.length > 1 || text.includes('(default: [])'))
          doubled.push(`${path} ${option.flags}: ${text}`)
      }
    }
    expect(options).toBeGreaterThan(100)
    expect(doubled).toEqual([])
  })

  it('prints the run -a default once, as the issue saw it printed twice', async () => {
    const { code, stdout } = await runRegent(['run', '--help'])
    expect(code).toBe(0)
    const flat = stdout.replace(/\s+/g, ' ')
    expect(flat).toContain('listen address, repeatable (default localhost:8181)')
    expect(flat).not.toContain('(default: [])')
    expect(flat).not.toMatch(/\(default localhost:8181\) \(default/)
  })
})
