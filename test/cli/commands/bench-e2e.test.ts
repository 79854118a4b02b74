/**
 * `regent bench --e2e` and the other bench flags of the spec, run as a user runs them: the query
 * is benchmarked over HTTP against a server started in process (the request timer is reported),
 * an undefined result fails with --fail, `-t wasm` is refused (exit 1), bad shutdown periods are
 * usage errors (exit 2), `-c` is accepted with a notice and `-s` type-checks input with a schema.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-bench-e2e-'))
  writeFileSync(
    join(dir, 'p.rego'),
    'package authz\n\nallow if input.user == "alice"\n\nage_ok if input.age + 1 > 2\n',
  )
  writeFileSync(join(dir, 'input.json'), '{"user": "alice", "age": 3}')
  writeFileSync(join(dir, 'config.yaml'), 'services: {}\n')
  writeFileSync(
    join(dir, 'schema.json'),
    JSON.stringify({ type: 'object', properties: { user: { type: 'string' }, age: { type: 'string' } } }),
  )
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent bench --e2e and flags', () => {
  it('benchmarks over HTTP, and fails an undefined result', async () => {
    const base = ['bench', '--e2e', '-d', join(dir, 'p.rego'), '--benchtime', '20x', '-f', 'json']
    const [data, query, undefinedResult] = await Promise.all([
      runRegent([...base, '-i', join(dir, 'input.json'), '-c', join(dir, 'config.yaml'), 'data.authz.allow']),
      runRegent([
        ...base,
        '-i',
        join(dir, 'input.json'),
        '--shutdown-wait-period',
        '1',
        'x := data.authz.allow',
      ]),
      runRegent([...base, 'data.authz.allow']),
    ])
    for (const r of [data, query]) {
      expect(r.code, r.stderr).toBe(0)
      const result = JSON.parse(r.stdout) as { N: number; Extra: Record<string, number> }
      expect(result.N).toBe(20)
      expect(result.Extra.histogram_timer_server_request_ns_count).toBe(20)
    }
    expect(data.stderr).toContain('bench -c is accepted')
    expect(undefinedResult.code).toBe(1)
    expect(undefinedResult.stdout).toContain('undefined result')
  }, 60_000)

  it('refuses -t wasm (exit 1) and bad shutdown periods (exit 2); -s type-checks input', async () => {
    const [wasm, grace, schema] = await Promise.all([
      runRegent(['bench', '-t', 'wasm', '-d', join(dir, 'p.rego'), 'data.authz.allow']),
      runRegent([
        'bench',
        '--e2e',
        '--shutdown-grace-period',
        'soon',
        '-d',
        join(dir, 'p.rego'),
        'data.authz.allow',
      ]),
      runRegent([
        'bench',
        '-s',
        join(dir, 'schema.json'),
        '-d',
        join(dir, 'p.rego'),
        '--benchtime',
        '5x',
        'data.authz.age_ok',
      ]),
    ])
    expect(wasm.code).toBe(1)
    expect(wasm.stderr).toContain('-t wasm is not supported')
    expect(grace.code).toBe(2)
    expect(grace.stderr).toContain('invalid --shutdown-grace-period soon')
    expect(schema.code).toBe(1)
    expect(schema.stderr).toMatch(/rego_type_error/)
  }, 60_000)
})
