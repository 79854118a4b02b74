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

  it('with -f discard prints the errors with sorted keys, as OPA does through a map', async () => {
    const { code, stdout } = await runRegent(['eval', '-f', 'discard', '--show-builtin-errors', '1/0'])
    expect(code).toBe(0)
    expect(stdout).toBe(
      '{\n  "errors": [\n    {\n      "code": "eval_builtin_error",\n      "location": {\n        "col": 1,\n' +
        '        "file": "",\n        "row": 1\n      },\n      "message": "div: divide by zero"\n    }\n  ]\n}\n',
    )
  })
})
