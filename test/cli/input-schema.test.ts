/**
 * `-s DIR` of `regent check` and `regent eval` (cli/input-schema.ts): a directory of JSON Schemas
 * that `# METADATA schemas:` annotations name, as `opa check -s DIR` and `opa eval -s DIR` read it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runRegent } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-schema-dir-'))
const schemas = join(dir, 'schemas')
mkdirSync(join(schemas, 'k8s'), { recursive: true })
writeFileSync(
  join(schemas, 'k8s', 'pod.json'),
  JSON.stringify({
    type: 'object',
    properties: {
      kind: { type: 'string' },
      spec: { type: 'object', properties: { replicas: { type: 'integer' } } },
    },
  }),
)
writeFileSync(
  join(schemas, 'limits.json'),
  JSON.stringify({ type: 'object', properties: { max: { type: 'number' } } }),
)

/** Writes `src` as `name` under the test folder and returns its path. */
function policy(name: string, src: string): string {
  const path = join(dir, name)
  writeFileSync(path, src)
  return path
}

const contradicts = policy(
  'contradicts.rego',
  'package pods\n\n# METADATA\n# schemas:\n#   - input: schema.k8s.pod\ndeny if input.spec.replicaz > 3\n',
)
const agrees = policy(
  'agrees.rego',
  'package pods\n\n# METADATA\n# schemas:\n#   - input: schema.k8s.pod\n#   - data.limits: schema.limits\ndeny if input.spec.replicas > data.limits.max\n',
)
const missing = policy(
  'missing.rego',
  'package pods\n\n# METADATA\n# schemas:\n#   - input: schema.k8s.node\nallow if input.x\n',
)
const inline = policy(
  'inline.rego',
  'package pods\n\n# METADATA\n# schemas:\n#   - input.kind: {type: string}\nallow if input.kind == 1\n',
)
const packageScope = policy(
  'package-scope.rego',
  '# METADATA\n# scope: package\n# schemas:\n#   - input: schema.k8s.pod\npackage pods\n\na if input.kind == "Pod"\n\nb if input.spek\n',
)

const limits = policy('limits.json', '{"limits": {"max": 3}}')

const replicazError =
  `${contradicts}:6: rego_type_error: undefined ref: input.spec.replicaz\n` +
  '\tinput.spec.replicaz\n' +
  `\t${' '.repeat(11)}^\n` +
  `\t${' '.repeat(11)}have: "replicaz"\n` +
  `\t${' '.repeat(11)}want (one of): ["replicas"]\n`

describe('regent check -s DIR', () => {
  it("reports a rule that contradicts its annotated schema, with OPA's message", async () => {
    const res = await runRegent(['check', '-s', schemas, contradicts])
    expect(res.code).toBe(1)
    expect(res.stdout).toBe(`1 error occurred: ${replicazError}`)
  })

  it('accepts rules that agree with their input and data schemas', async () => {
    expect(await runRegent(['check', '-s', schemas, agrees])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    })
  })

  it('reports a schema path the set lacks at the rule', async () => {
    const res = await runRegent(['check', '-s', schemas, missing])
    expect(res.code).toBe(1)
    expect(res.stdout).toBe(
      `1 error occurred: ${missing}:6: rego_type_error: undefined schema: schema.k8s.node\n`,
    )
  })

  it('reports a schema ref without -s, as opa check applies annotations always', async () => {
    const res = await runRegent(['check', agrees])
    expect(res.code).toBe(1)
    expect(res.stdout).toContain('undefined schema: schema.k8s.pod')
  })

  it('applies an inline definition', async () => {
    const res = await runRegent(['check', inline])
    expect(res.code).toBe(1)
    expect(res.stdout).toContain(`${inline}:6: rego_type_error: `)
  })

  it('applies a package-scope annotation to every rule of the package', async () => {
    const res = await runRegent(['check', '-f', 'json', '-s', schemas, packageScope])
    expect(res.code).toBe(1)
    const errors = JSON.parse(res.stderr || res.stdout).errors as {
      message: string
      location: { row: number }
    }[]
    expect(errors.map((e) => [e.message, e.location.row])).toEqual([['undefined ref: input.spek', 9]])
  })
})

describe('regent eval -s DIR', () => {
  it('fails on a rule that contradicts its annotated schema', async () => {
    const res = await runRegent(['eval', '-f', 'pretty', '-s', schemas, '-d', contradicts, 'data.pods.deny'])
    expect(res.code).toBe(2)
    expect(res.stderr).toBe(`1 error occurred: ${replicazError}`)
    expect((await runRegent(['eval', '-f', 'pretty', '-d', contradicts, 'data.pods.deny'])).code).toBe(0)
  })

  it('evaluates a policy that agrees with its schemas', async () => {
    const res = await runRegent(
      ['eval', '-f', 'raw', '-s', schemas, '-d', agrees, '-d', limits, '-I', 'data.pods.deny'],
      { stdin: '{"kind": "Pod", "spec": {"replicas": 5}}' },
    )
    expect(res).toMatchObject({ code: 0, stdout: 'true\n' })
  })

  it('leaves annotations alone without -s, as before', async () => {
    const res = await runRegent(['eval', '-f', 'raw', '-d', missing, 'data.pods.allow'], {
      stdin: '',
    })
    expect(res.code).toBe(0)
  })
})
