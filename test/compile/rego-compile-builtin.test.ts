/**
 * `rego.compile` as `regent test` and `regent eval` offer it (compile/rego-compile-builtin.ts): the
 * compile endpoint's SQL over the caller's own policy, input and `with`-overridden data.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_BUILTINS } from '../../cli/test-builtins.js'
import { createBuiltinContext } from '../../core/rego/builtins/context.js'
import { compilePolicy } from '../../core/rego/eval/policy.js'
import { parseModule } from '../../core/rego/index.js'
import { toJSONText } from '../../core/rego/values/index.js'

const FILTERS = `package filters

# METADATA
# scope: document
# compile:
#   unknowns: ["input.fruits", "input.users"]
#   mask_rule: data.filters.mask
include if {
  input.users.name == input.username
  data.config.region == "eu"
}

include if input.fruits.price < 10

mask.fruits.name.replace.value := "<hidden>" if data.config.region == "eu"
`

function policyOf(text = FILTERS, data: unknown = { config: { region: 'eu' } }) {
  return compilePolicy({ 'filters.rego': parseModule(text, { file: 'filters.rego' }) }, data, {
    builtins: TEST_BUILTINS,
  })
}

/** The value of `query`'s `x`, or undefined; throws what the evaluation throws. */
async function compiledValue(query: string, text?: string, strict = false, data?: unknown) {
  const run = await policyOf(text, data)
    .query(query)
    .eval({ ctx: createBuiltinContext({ strictBuiltinErrors: strict }), strictBuiltinErrors: strict })
  const x = run.results[0]?.bindings.get('x')
  return x === undefined ? undefined : JSON.parse(toJSONText(x))
}

describe('rego.compile', () => {
  it('compiles the rule with the caller’s input and data, and evaluates the mask rule', async () => {
    expect(
      await compiledValue(
        'x := rego.compile({"query": "data.filters.include", "target": "sql+postgresql"}) with input.username as "jane"',
      ),
    ).toEqual({
      query: "WHERE (users.name = E'jane' OR fruits.price < E'10')",
      masks: { fruits: { name: { replace: { value: '<hidden>' } } } },
    })
  })

  it('sees data replaced by `with` in partial evaluation and in the mask rule', async () => {
    expect(
      await compiledValue(
        'x := rego.compile({"query": "data.filters.include", "target": "sql+mysql"}) with input.username as "jane" with data.config.region as "us"',
      ),
      // MySQL, as every dialect, gets numbers as quoted literals; the mask rule's body is undefined
      // under region "us", and its ref head still builds the enclosing objects (as OPA's does).
    ).toEqual({ query: "WHERE fruits.price < '10'", masks: { fruits: { name: { replace: {} } } } })
  })

  it('renders each dialect, with the mappings of that dialect only', async () => {
    const request = (target: string) =>
      `x := rego.compile({"query": "data.filters.include", "target": "${target}", "mappings": {"sqlite": {"users": {"$self": "people"}}, "postgresql": {"fruits": {"price": "cost"}}}}) with input.username as "o'brien"`
    expect((await compiledValue(request('sql+sqlite')))?.query).toBe(
      "WHERE (people.name = 'o''brien' OR fruits.price < '10')",
    )
    expect((await compiledValue(request('sql+postgresql')))?.query).toBe(
      "WHERE (users.name = E'o\\'brien' OR fruits.cost < E'10')",
    )
  })

  it('answers "" when every row passes and undefined when none does', async () => {
    const policy =
      'package filters\n\n# METADATA\n# scope: document\n# compile:\n#   unknowns: [input.t]\nyes if input.n > 1\n\nno if false\n'
    expect(
      await compiledValue(
        'x := rego.compile({"query": "data.filters.yes", "target": "sql+sqlserver"}) with input.n as 2',
        policy,
      ),
    ).toEqual({ query: '' })
    expect(
      await compiledValue(
        'x := rego.compile({"query": "data.filters.no", "target": "sql+sqlserver"})',
        policy,
      ),
    ).toBeUndefined()
    // No target: undefined, as the reference.
    expect(await compiledValue('x := rego.compile({"query": "data.filters.yes"})', policy)).toBeUndefined()
  })

  it('raises fragment errors, or returns them with raise_error false', async () => {
    const policy =
      'package filters\n\n# METADATA\n# scope: document\n# compile:\n#   unknowns: [input.t]\ninclude if input.t.name == user\n\nuser := object.get(input, "user", "?")\n'
    await expect(
      compiledValue(
        'x := rego.compile({"query": "data.filters.include", "target": "sql+postgresql"})',
        policy,
      ),
    ).rejects.toThrow(
      '1 error occurred during compilation:\nfilters.rego:9: pe_fragment_error: eq: nested call operand: object.get(input, "user", "?")',
    )
    const inBand = await compiledValue(
      'x := rego.compile({"query": "data.filters.include", "target": "sql+postgresql", "raise_error": false})',
      policy,
    )
    expect(inBand).toEqual({
      errors: [
        {
          code: 'pe_fragment_error',
          location: { file: 'filters.rego', row: 9, col: 9 },
          message: 'eq: nested call operand: object.get(input, "user", "?")',
        },
      ],
    })
  })

  it('returns unusable annotations in band, whatever raise_error says', async () => {
    // `custom:` (how policies before OPA 1.9 wrote it) is not checked by the parser.
    const policy =
      'package filters\n\n# METADATA\n# scope: document\n# custom:\n#   unknowns: ["x.y"]\ninclude if input.t.a == 1\n'
    const value = await compiledValue(
      'x := rego.compile({"query": "data.filters.include", "target": "sql+postgresql"})',
      policy,
    )
    expect(value.errors).toHaveLength(1)
    expect(value.errors[0].code).toBe('invalid_unknown')
  })

  it('refuses UCAST targets, unknown dialects and a mask rule that is not a full ref', async () => {
    const call = (request: string) => compiledValue(`x := rego.compile(${request})`, undefined, true)
    await expect(call('{"query": "data.filters.include", "target": "ucast+prisma"}')).rejects.toThrow(
      'UCAST not suported for rego.compile() yet',
    )
    await expect(call('{"query": "data.filters.include", "target": "sql+oracle"}')).rejects.toThrow(
      'unsupported target "sql+oracle"',
    )
    await expect(
      call('{"query": "data.filters.include", "target": "sql+mysql", "mask_rule": "mask"}'),
    ).rejects.toThrow('mask_rule: a full ref (data.…) is required, got mask')
  })

  it('exists only where tests and eval compile: the relay’s policies cannot call it', () => {
    expect(() =>
      compilePolicy({
        'p.rego': parseModule(
          'package p\n\nx := rego.compile({"query": "data.p.y", "target": "sql+mysql"})\n',
          {
            file: 'p.rego',
          },
        ),
      }),
    ).toThrow(/undefined function rego.compile/)
  })

  describe('with http.send in the filter rule (the nested evaluation awaits it as the caller does)', () => {
    let server: Server
    let url: string
    beforeAll(async () => {
      server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{"region": "eu"}')
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

    it('compiles with the answer of the request', async () => {
      const policy = `package filters

# METADATA
# scope: document
# compile:
#   unknowns: [input.t]
include if {
  http.send({"method": "GET", "url": "${url}"}).body.region == input.t.region
}
`
      expect(
        await compiledValue(
          'x := rego.compile({"query": "data.filters.include", "target": "sql+mysql"})',
          policy,
        ),
      ).toEqual({ query: "WHERE t.region = 'eu'" })
    })
  })
})
