/**
 * `regent eval --timeout` runs under the evaluation budget (the deadline and, unless
 * `--instruction-limit` says otherwise, the default work limit), so runaway queries and built-ins
 * that would allocate gigabytes stop with OPA's error codes; `--capabilities` applies allow_net.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtinCapabilities } from '../../../core/rego/builtins/registry.js'
import { runRegent } from '../../support/run-cli.js'

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'regent-eval-budget-'))
  await writeFile(join(dir, 'caps.json'), JSON.stringify({ builtins: builtinCapabilities(), allow_net: [] }))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const codes = (stdout: string) =>
  ((JSON.parse(stdout) as { errors?: Array<{ code: string; message: string }> }).errors ?? []).map(
    (e) => e.code,
  )

describe('regent eval budget', () => {
  it('--timeout alone refuses numbers.range(1, 1e8) with the default work limit, before allocating', async () => {
    const r = await runRegent(['eval', '--timeout', '20s', 'x := numbers.range(1, 1e8)'])
    expect(r.code).toBe(2)
    expect(codes(r.stdout)).toEqual(['eval_instruction_limit_error'])
  })

  it('--timeout stops a runaway loop with eval_cancel_error when the work limit is off', async () => {
    const r = await runRegent([
      'eval',
      '--timeout',
      '300ms',
      '--instruction-limit',
      '0',
      'count([1 | some a in numbers.range(1,10000); some b in numbers.range(1,10000)])',
    ])
    expect(r.code).toBe(2)
    expect(codes(r.stdout)).toEqual(['eval_cancel_error'])
  })

  it('--capabilities with an empty allow_net refuses http.send, naming the host', async () => {
    const r = await runRegent([
      'eval',
      '--capabilities',
      join(dir, 'caps.json'),
      '--strict-builtin-errors',
      'http.send({"method": "get", "url": "http://169.254.169.254/latest/meta-data/"})',
    ])
    expect(r.code).toBe(2)
    expect(r.stdout).toContain('http.send: unallowed host: 169.254.169.254')
  })

  it('refuses a malformed --timeout naming the flag', async () => {
    const r = await runRegent(['eval', '--timeout', 'soon', 'true'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--timeout: expected a duration')
  })
})
