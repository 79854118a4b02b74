import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { BundleError, bundleFromParts, readBundle, writeBundle } from '../../../core/bundle/index.js'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'regent-bundle-'))
  dirs.push(dir)
  return dir
}

describe('readBundle / writeBundle', () => {
  it('round-trips modules, data and manifest through a tarball', async () => {
    const built = bundleFromParts({
      modules: { 'authz/policy.rego': 'package authz\n\nallow if input.user == "alice"\n' },
      data: { authz: { users: ['alice'], limit: 2.5 } },
      manifest: { revision: 'r1', roots: ['authz'], metadata: { team: 'a' } },
    })
    const read = await readBundle(await writeBundle(built))
    expect(read.modules.map((m) => [m.path, m.source])).toEqual([
      ['authz/policy.rego', 'package authz\n\nallow if input.user == "alice"\n'],
    ])
    expect(read.data).toEqual({ authz: { users: ['alice'], limit: 2.5 } })
    expect(read.manifest).toEqual({ revision: 'r1', roots: ['authz'], metadata: { team: 'a' } })
  })

  it('writes the same bytes for the same bundle', async () => {
    const parts = { modules: { 'p.rego': 'package p\n' }, data: { p: { x: 1 } } }
    const a = await writeBundle(bundleFromParts(parts))
    const b = await writeBundle(bundleFromParts(parts))
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true)
  })

  it('loads a directory tree as its tarball loads', async () => {
    const dir = await tempDir()
    await mkdir(join(dir, 'a', 'b'), { recursive: true })
    await writeFile(join(dir, 'a', 'b', 'data.json'), '{"v": 1}')
    await writeFile(join(dir, 'a', 'data.yaml'), 'w: yes\n')
    await writeFile(join(dir, 'a', 'policy.rego'), 'package a\n')
    await writeFile(join(dir, '.manifest'), '{"revision": "7", "roots": ["/a/"]}')
    await writeFile(join(dir, 'README.md'), 'hello')
    const fromDir = await readBundle({ dir })
    expect(fromDir.data).toEqual({ a: { b: { v: 1 }, w: true } })
    expect(fromDir.manifest.roots).toEqual(['a'])
    expect(fromDir.files.map((f) => f.path)).toEqual(['README.md'])
    const fromTar = await readBundle(await writeBundle(fromDir))
    expect(fromTar.data).toEqual(fromDir.data)
    expect(fromTar.manifest).toEqual(fromDir.manifest)
    expect(fromTar.modules).toEqual(fromDir.modules)
    expect(fromTar.files).toEqual(fromDir.files)
  })

  it('refuses a module outside the manifest roots, naming the module', async () => {
    expect(() =>
      bundleFromParts({ modules: { 'x/p.rego': 'package other\n' }, manifest: { roots: ['authz'] } }),
    ).toThrow(/package other of module x\/p\.rego/)
  })

  it('refuses a missing directory with a clear error', async () => {
    await expect(readBundle({ dir: '/nonexistent/regent' })).rejects.toBeInstanceOf(BundleError)
  })
})
