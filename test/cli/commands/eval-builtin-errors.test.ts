import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-eval-builtin-errors-'))
  writeFileSync(join(dir, 'x.rego'), 'package x\n\np if {\n\t1/0\n}\n\nq if {\n\t1/0\n}\n')
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent eval --show-builtin-errors', () => {
  it('lists each ignored error and still exits 0, the result being defined', async () => {
    const { code, stdout } = await runRegent(['eval', '--show-builtin-errors', '-d', dir, 'data.x'])
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(
      out.errors.map((e: { code: string; location: { row: number } }) => [e.code, e.location.row]),
    ).toEqual([
      ['eval_builtin_error', 4],
      ['eval_builtin_error', 8],
    ])
    expect(out.result[0].expressions[0].value).toEqual({})
  })
})
