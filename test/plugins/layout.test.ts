/**
 * The layout table of DESIGN.md: plugins/ is shared by the relay and the agent, so it may import
 * core/ and store/ only (and npm packages). An arrow pointing up would make them depend on each other.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

describe('plugins/ layout', () => {
  it('imports only core/, store/ and itself', () => {
    const offending: string[] = []
    for (const file of sourceFiles(join(root, 'plugins'))) {
      const text = readFileSync(file, 'utf8')
      for (const m of text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)) {
        const target = relative(root, resolve(dirname(file), m[1]!))
        const top = target.split('/')[0]
        if (!['core', 'store', 'plugins'].includes(top!))
          offending.push(`${relative(root, file)} -> ${target}`)
      }
    }
    expect(offending).toEqual([])
  })
})
