import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleFromParts, signBundle, writeBundle } from '../../../core/bundle/index.js'
import { type FaultUpstream, startFaultUpstream } from '../../support/fault-upstream.js'
import { runRegent } from '../../support/run-cli.js'

let dir: string

const MODULES = {
  'policy.rego': `package system

main contains "hello" if input.foo == 7
main contains input.big if input.big
`,
  'authz.rego': 'package authz\n\nallow if input.user == "alice"\n',
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'regent-exec-'))
  mkdirSync(join(dir, 'bundle'))
  for (const [file, text] of Object.entries(MODULES)) writeFileSync(join(dir, 'bundle', file), text)
  mkdirSync(join(dir, 'inputs', 'more'), { recursive: true })
  writeFileSync(join(dir, 'inputs', 'a.json'), '{"foo": 7, "big": 12345678901234567890}')
  writeFileSync(join(dir, 'inputs', 'b.yaml'), 'foo: 8\n')
  writeFileSync(join(dir, 'inputs', 'more', 'c.yml'), 'user: alice\n')
  writeFileSync(join(dir, 'inputs', 'notes.txt'), 'not an input')
  writeFileSync(join(dir, 'broken.json'), '{"foo": ')
  writeFileSync(join(dir, 'bundle.tar.gz'), await writeBundle(bundleFromParts({ modules: MODULES })))
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Entry {
  decision_id?: string
  path: string
  result?: unknown
  error?: { code: string; message: string }
}

const entries = (stdout: string) => (JSON.parse(stdout) as { result: Entry[] }).result

describe('regent exec', () => {
  it('evaluates the default decision against every input file of a directory, in name order', async () => {
    const { code, stdout } = await runRegent(['exec', '-b', join(dir, 'bundle'), join(dir, 'inputs')])
    expect(code).toBe(0)
    const out = entries(stdout)
    expect(out.map((e) => e.path)).toEqual([
      join(dir, 'inputs', 'a.json'),
      join(dir, 'inputs', 'b.yaml'),
      join(dir, 'inputs', 'more', 'c.yml'),
    ])
    expect(out[0]?.decision_id).toMatch(/^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/)
    // Every digit of the big number survives.
    expect(stdout).toContain('12345678901234567890')
    expect(out[0]?.result).toHaveLength(2)
    expect(out[1]?.result).toEqual([])
    expect(out[2]?.result).toEqual([])
  })

  it('takes --decision and a .tar.gz bundle, and reports undefined decisions as OPA does', async () => {
    const { code, stdout } = await runRegent([
      'exec',
      '--decision',
      'authz/allow',
      '-b',
      join(dir, 'bundle.tar.gz'),
      join(dir, 'inputs', 'more', 'c.yml'),
      join(dir, 'inputs', 'a.json'),
    ])
    expect(code).toBe(0)
    const out = entries(stdout)
    expect(out[0]).toMatchObject({ path: join(dir, 'inputs', 'more', 'c.yml'), result: true })
    expect(out[1]).toEqual({
      path: join(dir, 'inputs', 'a.json'),
      error: { code: 'opa_undefined_error', message: '/authz/allow decision was undefined' },
    })
  })

  it('exits 1 with --fail, --fail-defined and --fail-non-empty as their conditions say', async () => {
    const base = ['exec', '--decision', 'authz/allow', '-b', join(dir, 'bundle')]
    const undefinedOne = join(dir, 'inputs', 'a.json')
    const definedOne = join(dir, 'inputs', 'more', 'c.yml')
    expect((await runRegent([...base, '--fail', undefinedOne])).code).toBe(1)
    expect((await runRegent([...base, '--fail', definedOne])).code).toBe(0)
    expect((await runRegent([...base, '--fail-defined', definedOne])).code).toBe(1)
    expect((await runRegent([...base, '--fail-defined', undefinedOne])).code).toBe(0)
    const system = ['exec', '-b', join(dir, 'bundle'), '--fail-non-empty']
    expect((await runRegent([...system, join(dir, 'inputs', 'a.json')])).code).toBe(1)
    expect((await runRegent([...system, join(dir, 'inputs', 'b.yaml')])).code).toBe(0)
  })

  it('reports a malformed input file in its entry and goes on with the others', async () => {
    const { code, stdout } = await runRegent([
      'exec',
      '-b',
      join(dir, 'bundle'),
      join(dir, 'broken.json'),
      join(dir, 'inputs', 'b.yaml'),
    ])
    expect(code).toBe(0)
    const out = entries(stdout)
    expect(out[0]?.error?.code).toBe('invalid_input')
    expect(out[0]?.error?.message).toContain('broken.json')
    expect(out[1]?.result).toEqual([])
  })

  it('refuses a policy that does not parse, and a missing input path, with exit 1 and no output', async () => {
    const bad = join(dir, 'bad.rego')
    writeFileSync(bad, 'package x\n\nallow if {\n')
    const parse = await runRegent(['exec', '-d', bad, join(dir, 'inputs')])
    expect(parse.code).toBe(1)
    expect(parse.stdout).toBe('')
    expect(parse.stderr).toContain('rego_parse_error')
    const missing = await runRegent(['exec', '-b', join(dir, 'bundle'), join(dir, 'nowhere')])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('nowhere')
  })

  describe('with -c, an OPA configuration', () => {
    let upstream: FaultUpstream
    beforeAll(async () => {
      upstream = await startFaultUpstream()
      const plain = bundleFromParts({ modules: MODULES, manifest: { revision: 'r1' } })
      upstream.setBundle('/v1/bundles/plain', await writeBundle(plain), '"p1"')
      const signed = await signBundle(plain, { key: 'secret', algorithm: 'HS256', keyId: 'k' })
      upstream.setBundle('/v1/bundles/signed', await writeBundle(signed), '"s1"')
    })
    afterAll(async () => upstream?.stop())

    const config = (text: string) => {
      const file = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`)
      writeFileSync(file, text)
      return file
    }

    it("downloads the configured bundles and uses the config's default_decision", async () => {
      const file = config(`services: { up: { url: "${upstream.url}/v1" } }
bundles:
  plain: { service: up, resource: bundles/plain }
default_decision: /authz/allow
`)
      const { code, stdout, stderr } = await runRegent([
        'exec',
        '-c',
        file,
        join(dir, 'inputs', 'more', 'c.yml'),
      ])
      expect(stderr).toBe('')
      expect(code).toBe(0)
      expect(entries(stdout)[0]).toMatchObject({ result: true })
    })

    it('verifies signed bundles with the configured keys, and refuses a wrong key without evaluating', async () => {
      const signed = (key: string) =>
        config(`services: { up: { url: "${upstream.url}/v1" } }
bundles:
  signed: { service: up, resource: bundles/signed, signing: { keyid: k } }
keys:
  k: { key: ${key}, algorithm: HS256 }
`)
      const good = await runRegent([
        'exec',
        '-c',
        signed('secret'),
        '--decision',
        'authz/allow',
        join(dir, 'inputs'),
      ])
      expect(good.code).toBe(0)
      expect(entries(good.stdout).some((e) => e.result === true)).toBe(true)
      const bad = await runRegent(['exec', '-c', signed('wrong'), join(dir, 'inputs')])
      expect(bad.code).toBe(1)
      expect(bad.stdout).toBe('')
      expect(bad.stderr).toContain('bundle signed')
    })

    it('fails clearly when the service cannot be reached or the file is not a configuration', async () => {
      const down = await runRegent([
        'exec',
        '-c',
        config('services: { up: { url: "http://127.0.0.1:9/v1" } }\nbundles: { b: { service: up } }\n'),
        join(dir, 'inputs'),
      ])
      expect(down.code).toBe(1)
      expect(down.stderr).toMatch(/bundle b/)
      const broken = await runRegent(['exec', '-c', config('services: [\n'), join(dir, 'inputs')])
      expect(broken.code).toBe(1)
      expect(broken.stderr).toContain('invalid configuration')
    })
  })
})
