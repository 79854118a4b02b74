/**
 * Query imports (OPA's `rego.Imports`, `opa eval --import`): a query holds no import itself, and
 * the imports it is compiled with decide its keywords, as OPA's rego.parseQuery derives the
 * parser options from them. Evaluated through a real policy to show the keywords take effect.
 */
import { describe, expect, it } from 'vitest'
import { bodyString } from '../../../../core/rego/compiler/text.js'
import { RegoErrors } from '../../../../core/rego/errors.js'
import { compile, partialEvaluate } from '../../../../core/rego/index.js'
import type { Import } from '../../../../core/rego/syntax/ast.js'
import { parseModule } from '../../../../core/rego/syntax/module-parser.js'
import { parseQuery } from '../../../../core/rego/syntax/query.js'

const importsOf = (...paths: string[]): Import[] =>
  parseModule(`package q\n${paths.map((p) => `import ${p}`).join('\n')}\n`, { file: 'q.rego' }).imports

const policy = compile({}, {})

/** The values of the query's first expression, or the parse error's message. */
function run(query: string, imports: Import[] = [], regoVersion: 'v0' | 'v1' = 'v1'): unknown {
  try {
    const body = parseQuery(query, { imports, regoVersion })
    return policy
      .prepare(body, { imports })
      .evalSync()
      .results.map((r) => r.expressions.map((e) => e.value))
  } catch (err) {
    if (err instanceof RegoErrors) return err.errors.map((e) => e.message)
    throw err
  }
}

describe('query imports', () => {
  it('enable not-bodies with future.keywords.not, the bare future.keywords and rego.v2', () => {
    const q = 'not { [1, 2][_] == 3 }'
    for (const imp of ['future.keywords.not', 'future.keywords', 'rego.v2'])
      expect(run(q, importsOf(imp)), imp).toEqual([[true]])
    // Without them `{ ... }` is a set term, which is true, so its negation is undefined.
    expect(run(q)).toEqual([])
  })

  it('enable and / or with their imports, and leave them identifiers otherwise', () => {
    expect(run('x := 1; x == 2 or x == 1', importsOf('future.keywords.or'))).toEqual([[true, true]])
    expect(run('1 == 1 and 2 == 2', importsOf('rego.v2'))).toEqual([[true]])
    expect(run('x := 1; x == 2 or x == 1')).toEqual(['unexpected identifier token: expected \\n or ; or eof'])
  })

  it('enable the v1 keywords in a v0 query with future.keywords.in or rego.v1', () => {
    expect(run('1 in [1]', importsOf('future.keywords.in'), 'v0')).toEqual([[true]])
    expect(run('every x in [1] { x == 1 }', importsOf('rego.v1'), 'v0')).toEqual([[true]])
  })

  it('decide the keywords of a partially evaluated query too', async () => {
    const result = await partialEvaluate(policy, 'input.a == 1 or input.b == 2', {
      queryImports: importsOf('rego.v2'),
    })
    expect(result.queries.map((q) => bodyString(q))).toEqual(['input.a = 1', 'input.b = 2'])
    await expect(partialEvaluate(policy, 'input.a == 1 or input.b == 2')).rejects.toThrow(
      /unexpected identifier token/,
    )
  })
})
