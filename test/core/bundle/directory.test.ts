import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadDirectory } from '../../../core/bundle/directory.js'

let root: string
let outside: string
const limits = { sizeLimitBytes: 1024 * 1024, maxEntries: 100 }

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'regent-dir-'))
  outside = await mkdtemp(join(tmpdir(), 'regent-outside-'))
  await writeFile(join(outside, 'secret.rego'), 'package secret\n')
  await mkdir(join(root, 'b', 'c'), { recursive: true })
  await writeFile(join(root, 'b', 'c', 'data.json'), '{}')
  await writeFile(join(root, 'a.rego'), 'package a\n')
  await writeFile(join(root, 'skip.txt'), 'x')
  await symlink(join(outside, 'secret.rego'), join(root, 'link.rego'))
  await symlink(outside, join(root, 'linkdir'))
  await symlink(root, join(root, 'b', 'loop'))
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
  await rm(outside, { recursive: true, force: true })
})

describe('loadDirectory', () => {
  it('walks regular files in sorted order and skips symlinks', async () => {
    const entries = await loadDirectory(root, limits)
    expect(entries.map((e) => e.path)).toEqual(['a.rego', 'b/c/data.json', 'skip.txt'])
  })

  it('follows symlinks when asked, cutting cycles', async () => {
    const entries = await loadDirectory(root, { ...limits, followSymlinks: true })
    expect(entries.map((e) => e.path)).toEqual([
      'a.rego',
      'b/c/data.json',
      'link.rego',
      'linkdir/secret.rego',
      'skip.txt',
    ])
  })

  it('skips names matching --ignore globs', async () => {
    const entries = await loadDirectory(root, { ...limits, ignore: ['*.txt', 'c'] })
    expect(entries.map((e) => e.path)).toEqual(['a.rego'])
  })

  it('enforces the size and count limits, naming the file', async () => {
    await expect(loadDirectory(root, { sizeLimitBytes: 5, maxEntries: 100 })).rejects.toThrow(
      /a\.rego.*size limit/,
    )
    await expect(loadDirectory(root, { sizeLimitBytes: 100, maxEntries: 1 })).rejects.toThrow(
      /more than 1 files/,
    )
  })
})
