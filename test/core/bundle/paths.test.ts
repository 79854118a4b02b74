import { describe, expect, it } from 'vitest'
import { BundleError } from '../../../core/bundle/errors.js'
import { dataPathOf, fileRole, normaliseEntryPath } from '../../../core/bundle/paths.js'

describe('normaliseEntryPath', () => {
  it.each([
    ['/data.json', 'data.json'],
    ['./data.json', 'data.json'],
    ['././a/./b/data.json', 'a/b/data.json'],
    ['a//b.rego', 'a/b.rego'],
  ])('%s -> %s', (name, want) => {
    expect(normaliseEntryPath(name)).toBe(want)
  })

  it.each(['../x', 'a/../../x', 'a/x/../b.rego', '//etc/passwd', 'C:/x', 'a\\b', 'a\0b', '/', './', '.'])(
    'refuses %j',
    (name) => {
      expect(() => normaliseEntryPath(name)).toThrow(BundleError)
    },
  )
})

describe('fileRole', () => {
  it.each([
    ['a/b/policy.rego', 'module'],
    ['a/data.json', 'data'],
    ['data.yaml', 'data'],
    ['x/data.yml', 'data'],
    ['other.json', 'other'],
    ['.manifest', 'manifest'],
    ['.signatures.json', 'signatures'],
    ['patch.json', 'patch'],
    ['a/patch.json', 'other'],
    ['policy.wasm', 'wasm'],
    ['plan.json', 'plan'],
    ['README.md', 'other'],
  ])('%s is %s', (path, role) => {
    expect(fileRole(path)).toBe(role)
  })

  it('places data at its directory', () => {
    expect(dataPathOf('data.json')).toBe('')
    expect(dataPathOf('a/b/data.yaml')).toBe('a/b')
  })
})
