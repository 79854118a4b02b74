import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runInspect } from '../../cli/commands/inspect.js'
import { bundleFromParts, signBundle, writeBundle } from '../../core/bundle/index.js'
import { captureIo, tempFolder, writeTree } from './bundle-helpers.js'

let dir: string
let cleanup: () => Promise<void>

const POLICY = `# METADATA
# title: Authorization
# description: Who may do what
package authz

# METADATA
# title: Allow rule
# entrypoint: true
allow if input.user == "alice"
`

beforeAll(async () => {
  ;({ dir, cleanup } = await tempFolder())
  const bundle = bundleFromParts({
    modules: { 'authz/policy.rego': POLICY, 'authz/extra.rego': 'package authz.extra\n' },
    data: { authz: { users: ['alice'] } },
    manifest: { revision: 'r9', roots: ['authz'], metadata: { owner: 'team-a' } },
  })
  const signed = await signBundle(bundle, { key: 'secret', algorithm: 'HS256', keyId: 'k1' })
  await writeFile(join(dir, 'b.tar.gz'), await writeBundle(signed))
  await writeTree(dir, { 'tree/x/y/data.json': '{}', 'tree/x/p.rego': 'package x\n', 'tree/notes.txt': 'n' })
  await writeFile(join(dir, 'single.rego'), POLICY)
})

afterAll(() => cleanup())

async function inspectJson(path: string, annotations = false) {
  const io = captureIo()
  const code = await runInspect(path, { format: 'json', annotations }, io)
  expect(io.err).toBe('')
  expect(code).toBe(0)
  return JSON.parse(io.out)
}

describe('regent inspect', () => {
  it('reports manifest, namespaces and signatures of a tarball as JSON', async () => {
    const info = await inspectJson(join(dir, 'b.tar.gz'))
    expect(info.manifest).toEqual({ revision: 'r9', roots: ['authz'], metadata: { owner: 'team-a' } })
    expect(info.namespaces).toEqual({
      data: ['/data.json'],
      'data.authz': ['/authz/policy.rego'],
      'data.authz.extra': ['/authz/extra.rego'],
    })
    expect(info.signatures_config.signatures).toHaveLength(1)
    expect(info.annotations).toBeUndefined()
  })

  it('reports a folder with its file paths, default manifest and other files', async () => {
    const info = await inspectJson(join(dir, 'tree'))
    expect(info.manifest).toEqual({ revision: '', roots: [''] })
    expect(info.namespaces).toEqual({
      'data.x': [join(dir, 'tree', 'x/p.rego')],
      'data.x.y': [join(dir, 'tree', 'x/y/data.json')],
    })
    expect(info.files).toEqual([join(dir, 'tree', 'notes.txt')])
    expect(info.signatures_config).toBeUndefined()
  })

  it('prints tables in pretty format', async () => {
    const io = captureIo()
    expect(await runInspect(join(dir, 'b.tar.gz'), { format: 'pretty' }, io)).toBe(0)
    expect(io.out).toMatch(/MANIFEST:\n\+-+\+-+\+\n\|\s+FIELD\s+\|\s+VALUE\s+\|/)
    expect(io.out).toMatch(/\| Revision \| r9\s+\|/)
    expect(io.out).toMatch(/\| Signed\s+\| yes \(HS256, key id k1, 4 files; not verified\)/)
    expect(io.out).toMatch(/NAMESPACES:[\s\S]*\| data\.authz\s+\| \/authz\/policy\.rego/)
  })

  it('lists annotations with -a, with the document each describes', async () => {
    const info = await inspectJson(join(dir, 'single.rego'), true)
    expect(info.namespaces).toEqual({ 'data.authz': [join(dir, 'single.rego')] })
    expect(info.annotations).toEqual([
      {
        path: 'data.authz',
        location: { file: join(dir, 'single.rego'), row: 1, col: 1 },
        annotations: { description: 'Who may do what', scope: 'package', title: 'Authorization' },
      },
      {
        path: 'data.authz.allow',
        location: { file: join(dir, 'single.rego'), row: 6, col: 1 },
        annotations: { entrypoint: true, scope: 'document', title: 'Allow rule' },
      },
    ])
  })

  it('refuses a bad format (exit 2) and a missing path (exit 1)', async () => {
    const io = captureIo()
    expect(await runInspect(join(dir, 'b.tar.gz'), { format: 'yaml' }, io)).toBe(2)
    expect(io.err).toMatch(/--format yaml is not supported/)
    expect(await runInspect(join(dir, 'missing'), { format: 'json' }, io)).toBe(1)
    expect(io.err).toMatch(/missing does not exist/)
  })
})
