/**
 * `regent exec` flags of issue 22: `--set`/`--set-file` over (or instead of) `-c`,
 * `--instruction-limit`, `--timeout`, `-O`, and the log flags (`-l`, `--log-format`,
 * `--log-timestamp-format`), each through the real CLI with exit codes checked.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleFromParts, writeBundle } from '../../../core/bundle/index.js'
import { type FaultUpstream, startFaultUpstream } from '../../support/fault-upstream.js'
import { runRegent } from '../../support/run-cli.js'

let dir: string
let upstream: FaultUpstream

const POLICY = `package authz

allow if input.user == "alice"

busy := count([x | some x in numbers.range(1, 20000)])
`

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'regent-exec-flags-'))
  mkdirSync(join(dir, 'inputs'))
  writeFileSync(join(dir, 'inputs', 'a.json'), '{"user": "alice"}')
  writeFileSync(join(dir, 'authz.rego'), POLICY)
  upstream = await startFaultUpstream()
  upstream.setBundle(
    '/v1/bundles/authz',
    await writeBundle(bundleFromParts({ modules: { 'authz.rego': POLICY } })),
    '"a1"',
  )
})

afterAll(async () => {
  await upstream?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const entries = (stdout: string) =>
  (JSON.parse(stdout) as { result: Array<{ result?: unknown; error?: { code: string } }> }).result

describe('regent exec --set / --set-file', () => {
  it('builds the whole configuration from --set alone, typed values included', async () => {
    const { code, stdout, stderr } = await runRegent([
      'exec',
      '--set',
      `services.up.url=${upstream.url}/v1`,
      '--set',
      'bundles.b.service=up,bundles.b.resource=bundles/authz,default_decision=/authz/allow',
      join(dir, 'inputs'),
    ])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(entries(stdout)[0]?.result).toBe(true)
  })

  it("overrides a key of the -c file, and --set-file sets a key to a file's text", async () => {
    const file = join(dir, 'wrong-url.yaml')
    writeFileSync(
      file,
      'services: { up: { url: "http://127.0.0.1:9/v1" } }\nbundles: { b: { service: up, resource: bundles/authz } }\n',
    )
    writeFileSync(join(dir, 'decision.txt'), '/authz/allow')
    const [fixed, broken] = await Promise.all([
      runRegent([
        'exec',
        '-c',
        file,
        '--set',
        `services.up.url=${upstream.url}/v1`,
        '--set-file',
        `default_decision=${join(dir, 'decision.txt')}`,
        join(dir, 'inputs'),
      ]),
      // Without the override the file's unreachable URL is used: the run fails naming the bundle.
      runRegent(['exec', '-c', file, join(dir, 'inputs')]),
    ])
    expect(fixed.code).toBe(0)
    expect(entries(fixed.stdout)[0]?.result).toBe(true)
    expect(broken.code).toBe(1)
    expect(broken.stderr).toContain('bundle b')
  })

  it('refuses malformed overrides and a missing --set-file with exit 1 and the flag named', async () => {
    const [noEq, proto, missing] = await Promise.all([
      runRegent(['exec', '--set', 'services', join(dir, 'inputs')]),
      runRegent(['exec', '--set', '__proto__.x=1', join(dir, 'inputs')]),
      runRegent(['exec', '--set-file', `x=${join(dir, 'nope.txt')}`, join(dir, 'inputs')]),
    ])
    expect(noEq.code).toBe(1)
    expect(noEq.stderr).toContain('--set services: expected key=value')
    expect(proto.code).toBe(1)
    expect(proto.stderr).toContain('not a dotted key')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('ENOENT')
  })
})

describe('regent exec evaluation limits and -O', () => {
  const run = (...flags: string[]) =>
    runRegent([
      'exec',
      '-d',
      join(dir, 'authz.rego'),
      '--decision',
      'authz/busy',
      ...flags,
      join(dir, 'inputs'),
    ])

  it('--instruction-limit stops a decision with eval_instruction_limit_error (and --fail exits 1)', async () => {
    const [limited, free] = await Promise.all([
      run('--instruction-limit', '100', '--fail'),
      run('--instruction-limit', '0', '--fail'),
    ])
    expect(limited.code).toBe(1)
    expect(entries(limited.stdout)[0]?.error?.code).toBe('eval_instruction_limit_error')
    expect(free.code).toBe(0)
    expect(free.stderr).toBe('') // the default log level (error) logs nothing when all goes well
    expect(entries(free.stdout)[0]?.result).toBe(20000)
  })

  it('refuses a bad --instruction-limit, --timeout or -O as usage errors (exit 2)', async () => {
    const cases = [
      ['--instruction-limit', 'lots'],
      ['--timeout', 'soon'],
      ['-O', 'max'],
      ['-O', '2'],
    ]
    const results = await Promise.all(cases.map((flags) => run(...flags)))
    results.slice(0, 3).forEach(({ code, stderr, stdout }, i) => {
      expect(code, cases[i]!.join(' ')).toBe(2)
      expect(stderr).toContain(cases[i]![0])
      expect(stdout).toBe('')
    })
    expect(results[3]!.code).toBe(0)
  })
})

describe('regent exec log flags', () => {
  const run = (...flags: string[]) =>
    runRegent([
      'exec',
      '-d',
      join(dir, 'authz.rego'),
      '--decision',
      'authz/allow',
      ...flags,
      join(dir, 'inputs'),
    ])

  it('-l debug logs each decision as JSON lines on stderr, with the timestamp layout asked for', async () => {
    const { code, stderr, stdout } = await run('-l', 'debug', '--log-timestamp-format', '2006-01-02')
    expect(code).toBe(0)
    expect(entries(stdout)[0]?.result).toBe(true)
    const line = JSON.parse(stderr.trim()) as Record<string, unknown>
    expect(line).toMatchObject({
      level: 'debug',
      msg: 'decision evaluated',
      decision: '/authz/allow',
      defined: true,
    })
    expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  })

  it('--log-format text and json-pretty change the line shape; unknown values are usage errors', async () => {
    const [text, pretty, bad] = await Promise.all([
      run('-l', 'debug', '--log-format', 'text'),
      run('-l', 'debug', '--log-format', 'json-pretty'),
      run('--log-format', 'xml'),
    ])
    expect(text.stderr).toMatch(/^\S+ debug decision evaluated path=".*a\.json" decision="\/authz\/allow"/)
    expect(pretty.stderr).toContain('\n  "msg": "decision evaluated",\n')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--log-format')
  })
})
