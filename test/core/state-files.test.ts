import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createPrivateFile,
  makePrivateDir,
  sharedStatePaths,
  writeNewPrivateFile,
} from '../../core/state-files.js'

let dir: string
let umask: number
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-state-files-'))
  // The most permissive umask: every mode below comes from the code, not from the shell.
  umask = process.umask(0)
})
afterEach(() => {
  process.umask(umask)
  rmSync(dir, { recursive: true, force: true })
})
const modeOf = (path: string) => statSync(path).mode & 0o777

describe('state files', () => {
  it('creates every missing folder 0700 and leaves an existing one as it is', () => {
    chmodSync(dir, 0o755)
    makePrivateDir(join(dir, 'a', 'b', 'c'))
    expect([modeOf(join(dir, 'a')), modeOf(join(dir, 'a', 'b')), modeOf(join(dir, 'a', 'b', 'c'))]).toEqual([
      0o700, 0o700, 0o700,
    ])
    expect(modeOf(dir)).toBe(0o755)
  })

  it('creates a file 0600 and never touches an existing one', () => {
    const file = join(dir, 'service.db')
    createPrivateFile(file)
    expect(modeOf(file)).toBe(0o600)
    writeFileSync(join(dir, 'kept'), 'data', { mode: 0o644 })
    createPrivateFile(join(dir, 'kept'))
    expect(readFileSync(join(dir, 'kept'), 'utf8')).toBe('data')
    expect(modeOf(join(dir, 'kept'))).toBe(0o644)
  })

  it('writes a new secret 0600 and refuses to overwrite one', () => {
    writeNewPrivateFile(join(dir, 'key.pem'), 'secret')
    expect(modeOf(join(dir, 'key.pem'))).toBe(0o600)
    expect(() => writeNewPrivateFile(join(dir, 'key.pem'), 'other')).toThrow(/EEXIST/)
  })

  it('lists the paths others may access, with their mode and what they should be', () => {
    chmodSync(dir, 0o700)
    makePrivateDir(join(dir, 'bundles'))
    createPrivateFile(join(dir, 'bundles', 'ok.tar.gz'))
    writeFileSync(join(dir, 'bundles', 'wide.tar.gz'), 'x', { mode: 0o644 })
    chmodSync(join(dir, 'bundles'), 0o750)
    expect(sharedStatePaths(dir)).toEqual([
      { path: join(dir, 'bundles'), mode: '0750', expected: '0700' },
      { path: join(dir, 'bundles', 'wide.tar.gz'), mode: '0644', expected: '0600' },
    ])
    expect(sharedStatePaths(dir, false)).toEqual([])
    expect(sharedStatePaths(join(dir, 'missing'))).toEqual([])
  })
})
