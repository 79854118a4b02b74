import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

// Every run is bounded by an iteration count (--benchtime Nx) so the tests stay fast; timings
// are never asserted, only counts, shapes and exit codes.
let dir: string
let policy: string
let input: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-bench-'))
  policy = join(dir, 'policy.rego')
  input = join(dir, 'input.json')
  writeFileSync(policy, 'package policy\n\nallow if is_admin\n\nis_admin if "admin" in input.user.roles\n')
  writeFileSync(input, '{"user": {"roles": ["admin"]}}')
  writeFileSync(join(dir, 'broken.rego'), 'package broken\n\nallow if {\n')
  writeFileSync(
    join(dir, 'noisy.rego'),
    'package noisy\n\nallow if {\n\tprint("evaluating")\n\tinput.ok\n}\n',
  )
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Splits the concatenated pretty JSON documents `--count N -f json` prints. */
function jsonDocs(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .trim()
    .split(/\n(?=\{)/)
    .map((d) => JSON.parse(d) as Record<string, unknown>)
}

describe('regent bench', () => {
  it('prints OPA’s table: samples, ns/op, B/op, allocs/op n/a and the eval-timer histogram', async () => {
    const { code, stdout, stderr } = await runRegent([
      'bench',
      '--benchtime',
      '20x',
      '-d',
      policy,
      '-i',
      input,
      'data.policy.allow',
    ])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const rows = new Map(
      stdout
        .split('\n')
        .filter((l) => l.startsWith('| '))
        .map((l) => l.split('|').map((c) => c.trim()))
        .map((cells) => [cells[1] as string, cells[2] as string]),
    )
    expect(rows.get('samples')).toBe('20')
    expect(Number(rows.get('ns/op'))).toBeGreaterThan(0)
    expect(rows.get('B/op')).toMatch(/^(\d+|n\/a)$/)
    expect(rows.get('allocs/op')).toBe('n/a')
    // OPA's table formats metrics with three significant figures below 100: 20 is `20.0`.
    expect(rows.get('histogram_timer_rego_query_eval_ns_count')).toBe('20.0')
    const keys = [...rows.keys()].slice(4)
    expect(keys).toEqual([
      'histogram_timer_rego_query_eval_ns_75%',
      'histogram_timer_rego_query_eval_ns_90%',
      'histogram_timer_rego_query_eval_ns_95%',
      'histogram_timer_rego_query_eval_ns_99%',
      'histogram_timer_rego_query_eval_ns_99.9%',
      'histogram_timer_rego_query_eval_ns_99.99%',
      'histogram_timer_rego_query_eval_ns_count',
      'histogram_timer_rego_query_eval_ns_max',
      'histogram_timer_rego_query_eval_ns_mean',
      'histogram_timer_rego_query_eval_ns_median',
      'histogram_timer_rego_query_eval_ns_min',
      'histogram_timer_rego_query_eval_ns_stddev',
    ])
  })

  it('prints Go’s BenchmarkResult JSON once per --count run', async () => {
    const { code, stdout } = await runRegent([
      'bench',
      '-f',
      'json',
      '--count',
      '2',
      '--benchtime',
      '10x',
      '-d',
      policy,
      '-i',
      input,
      'data.policy.allow',
    ])
    expect(code).toBe(0)
    const docs = jsonDocs(stdout)
    expect(docs).toHaveLength(2)
    for (const doc of docs) {
      expect(Object.keys(doc)).toEqual(['N', 'T', 'Bytes', 'MemAllocs', 'MemBytes', 'Extra'])
      expect(doc.N).toBe(10)
      expect(doc.T as number).toBeGreaterThan(0)
      expect(doc.MemAllocs).toBeNull()
      const extra = doc.Extra as Record<string, number>
      expect(extra.histogram_timer_rego_query_eval_ns_count).toBe(10)
      expect(extra.histogram_timer_rego_query_eval_ns_min).toBeLessThanOrEqual(
        extra.histogram_timer_rego_query_eval_ns_max as number,
      )
    }
  })

  it('prints gobench lines, without memory or histograms when asked', async () => {
    const full = await runRegent([
      'bench',
      '-f',
      'gobench',
      '--benchtime',
      '5x',
      '-d',
      policy,
      '-i',
      input,
      'data.policy.allow',
    ])
    expect(full.code).toBe(0)
    expect(full.stdout).toMatch(
      /^BenchmarkOPAEval\t {7}5\t +\d+ ns\/op\t.*histogram_timer_rego_query_eval_ns_count\t.* B\/op\n$/,
    )
    const bare = await runRegent([
      'bench',
      '-f',
      'gobench',
      '--benchtime',
      '5x',
      '--no-benchmem',
      '--no-metrics',
      '-d',
      policy,
      '-i',
      input,
      'data.policy.allow',
    ])
    expect(bare.code).toBe(0)
    expect(bare.stdout).toMatch(/^BenchmarkOPAEval\t {7}5\t +\d+ ns\/op\n$/)
  })

  it('fails on an undefined result unless --no-fail, and on unknown documents', async () => {
    const undef = await runRegent(['bench', '--benchtime', '5x', '-d', policy, 'data.policy.allow'])
    expect(undef.code).toBe(1)
    expect(undef.stderr).toBe('1 error occurred: undefined result\n')
    expect(undef.stdout).toBe('')
    const json = await runRegent([
      'bench',
      '-f',
      'json',
      '--benchtime',
      '5x',
      '-d',
      policy,
      'data.policy.nothing',
    ])
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toEqual({ errors: [{ message: 'undefined result' }] })
    const ok = await runRegent(['bench', '--no-fail', '--benchtime', '5x', '-d', policy, 'data.policy.allow'])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain('| samples ')
  })

  it('drops print() calls instead of printing one line per iteration', async () => {
    const { code, stdout, stderr } = await runRegent(
      ['bench', '--benchtime', '50x', '-d', join(dir, 'noisy.rego'), '-I', 'data.noisy.allow'],
      { stdin: '{"ok": true}' },
    )
    expect(code).toBe(0)
    expect(stderr).toBe('')
    expect(stdout).toMatch(/\| samples +\| +50 \|/)
  })

  it('exits 1 with OPA’s errors for malformed Rego and bad queries, 2 for usage errors', async () => {
    const parse = await runRegent([
      'bench',
      '-f',
      'json',
      '-d',
      join(dir, 'broken.rego'),
      'data.broken.allow',
    ])
    expect(parse.code).toBe(1)
    const errors = (
      JSON.parse(parse.stdout) as { errors: Array<{ code: string; location: { row: number } }> }
    ).errors
    expect(errors[0]).toMatchObject({ code: 'rego_parse_error', location: { row: 4 } })
    const unsafe = await runRegent(['bench', '-d', policy, 'x := y'])
    expect(unsafe.code).toBe(1)
    expect(unsafe.stderr).toContain('rego_unsafe_var_error: var y is unsafe')
    const missing = await runRegent(['bench', '-d', policy])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('missing query')
    const badTime = await runRegent(['bench', '--benchtime', 'soon', 'true'])
    expect(badTime.code).toBe(2)
    expect(badTime.stderr).toContain('invalid')
  })

  it('benchmarks partial evaluation with -p and grows N up to a time bound', async () => {
    const partial = await runRegent([
      'bench',
      '-p',
      '-f',
      'json',
      '--benchtime',
      '5x',
      '-d',
      policy,
      'data.policy.allow',
    ])
    expect(partial.code).toBe(0)
    const doc = JSON.parse(partial.stdout) as { N: number; Extra: Record<string, number> }
    expect(doc.N).toBe(5)
    expect(doc.Extra.histogram_timer_rego_partial_eval_ns_count).toBe(5)
    const timed = await runRegent(['bench', '-f', 'json', '--no-benchmem', '--benchtime', '200ms', 'x := 1'])
    expect(timed.code).toBe(0)
    const result = JSON.parse(timed.stdout) as { N: number; T: number; MemBytes: unknown }
    // N grows until the runs together take the bound (as Go's testing.B): one run of `x := 1` is
    // far below 200 ms even on a loaded machine (20 ms was not, once).
    expect(result.T).toBeGreaterThanOrEqual(200_000_000)
    expect(result.N).toBeGreaterThan(1)
    expect(result.MemBytes).toBeNull()
  })
})
