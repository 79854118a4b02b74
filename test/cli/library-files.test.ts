/**
 * How `regent pull` writes libraries (cli/library-files.ts), in process: new files written and
 * recorded; files unchanged since the last pull updated and, when gone from the service,
 * removed; files changed here (or never pulled) are conflicts and nothing is written unless
 * forced; names that could leave the folder are refused.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CommandError } from '../../cli/commands/sign.js'
import { PULL_STATE_FILE, type PulledLibrary, writeLibraries } from '../../cli/library-files.js'

describe('writeLibraries', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-libfiles-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))
  const read = (rel: string) => readFileSync(join(dir, rel), 'utf8')

  it('writes new files and records them; a second identical pull changes nothing', () => {
    const plan = writeLibraries(dir, [{ id: 'a', modules: { 'x.rego': 'X', 'sub/y.rego': 'Y' } }], false)
    expect(plan).toEqual({ written: ['a/x.rego', 'a/sub/y.rego'], removed: [], conflicts: [], unchanged: 0 })
    expect(read('a/sub/y.rego')).toBe('Y')
    expect(Object.keys(JSON.parse(read(PULL_STATE_FILE)).files)).toEqual(['a/x.rego', 'a/sub/y.rego'])
    expect(
      writeLibraries(dir, [{ id: 'a', modules: { 'x.rego': 'X', 'sub/y.rego': 'Y' } }], false),
    ).toMatchObject({
      written: [],
      unchanged: 2,
    })
  })

  it('updates and removes files unchanged since the last pull', () => {
    writeLibraries(dir, [{ id: 'a', modules: { 'x.rego': 'X', 'y.rego': 'Y' } }], false)
    const plan = writeLibraries(dir, [{ id: 'a', modules: { 'x.rego': 'X2' } }], false)
    expect(plan).toMatchObject({ written: ['a/x.rego'], removed: ['a/y.rego'], conflicts: [] })
    expect(read('a/x.rego')).toBe('X2')
    expect(existsSync(join(dir, 'a/y.rego'))).toBe(false)
  })

  it('reports local changes as conflicts and writes nothing unless forced', () => {
    writeLibraries(dir, [{ id: 'a', modules: { 'x.rego': 'X', 'y.rego': 'Y' } }], false)
    writeFileSync(join(dir, 'a/x.rego'), 'X-local')
    writeFileSync(join(dir, 'a/y.rego'), 'Y-local')
    const next: PulledLibrary[] = [
      { id: 'a', modules: { 'x.rego': 'X2' } },
      { id: 'b', modules: { 'z.rego': 'Z' } },
    ]
    const plan = writeLibraries(dir, next, false)
    expect(plan.conflicts.sort()).toEqual(['a/x.rego', 'a/y.rego'])
    expect(read('a/x.rego')).toBe('X-local')
    expect(existsSync(join(dir, 'b/z.rego'))).toBe(false)
    writeLibraries(dir, next, true)
    expect(read('a/x.rego')).toBe('X2')
    expect(existsSync(join(dir, 'a/y.rego'))).toBe(false)
    expect(read('b/z.rego')).toBe('Z')
  })

  it("treats a file it never wrote as the user's", () => {
    const first = writeLibraries(dir, [{ id: 'a', modules: { 'x.rego': 'X' } }], false)
    expect(first.conflicts).toEqual([])
    rmSync(join(dir, PULL_STATE_FILE))
    writeFileSync(join(dir, 'a/x.rego'), 'X-mine')
    expect(writeLibraries(dir, [{ id: 'a', modules: { 'x.rego': 'X' } }], false).conflicts).toEqual([
      'a/x.rego',
    ])
    // The same content as the service's is no conflict, whoever wrote it.
    writeFileSync(join(dir, 'a/x.rego'), 'X')
    expect(writeLibraries(dir, [{ id: 'a', modules: { 'x.rego': 'X' } }], false).conflicts).toEqual([])
  })

  it('refuses ids and module paths that could leave the folder', () => {
    for (const [id, file] of [
      ['..', 'x.rego'],
      ['a/b', 'x.rego'],
      ['a', '../x.rego'],
      ['a', '/etc/x.rego'],
      ['a', 'x.txt'],
      ['a', 'b\\..\\x.rego'],
    ])
      expect(() => writeLibraries(dir, [{ id: id!, modules: { [file!]: 'X' } }], true)).toThrow(CommandError)
    expect(existsSync(join(dir, PULL_STATE_FILE))).toBe(false)
  })
})
