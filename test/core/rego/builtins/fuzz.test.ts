/**
 * Property test of every synchronous built-in: called with generated arguments of every kind
 * (null, booleans, small and huge numbers, strings that look like numbers, dates, regexes or JSON,
 * arrays, sets, objects), each either answers a value (or no value) or fails with the built-in
 * error OPA would report (eval_type_error / eval_builtin_error); a TypeError or RangeError escaping
 * from regent's own code fails the test. Values are kept small so no built-in is asked for
 * unbounded work; run counts are bounded.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { FunctionBuiltin, RelationBuiltin } from '../../../../core/rego/builtins/define.js'
import { BuiltinCallError } from '../../../../core/rego/builtins/errors.js'
import { callBuiltin, callRelation, DEFAULT_BUILTINS } from '../../../../core/rego/builtins/registry.js'
import { typeToJSON } from '../../../../core/rego/types/index.js'
import { fromJS, SetValue, type Value } from '../../../../core/rego/values/index.js'
import { testContext } from './helpers.js'

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    '',
    '1',
    '-0.5',
    '1e400',
    '0x1F',
    '2026-11-22T06:00:00Z',
    '10ms',
    '1.2.3',
    '127.0.0.1/24',
    '::1',
    'a.*b',
    '[a-',
    '{"a":1}',
    'eyJhbGciOiJIUzI1NiJ9.e30.x',
    '%zz',
    '\u0000',
    '😀',
  ),
)
const number = fc.oneof(
  fc.integer({ min: -20, max: 20 }),
  fc.constantFrom(0.5, -1.5, 2 ** 53 + 2, 1e21, Number.MAX_SAFE_INTEGER),
)
const json = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    number,
    text,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(text, fc.constantFrom('a', 'b', 'alg', 'kty', 'typ')), tie('v'), { maxKeys: 3 }),
  ),
})).v
const value: fc.Arbitrary<Value> = fc.oneof(
  { weight: 5, arbitrary: json.map((v) => fromJS(v)) },
  { weight: 1, arbitrary: fc.array(json, { maxLength: 3 }).map((xs) => setOfNow(xs)) },
)

function setOfNow(xs: unknown[]): Value {
  const s = new SetValue()
  for (const x of xs) s.add(fromJS(x))
  return s as Value
}

interface TypeJSON {
  type: string
  of?: TypeJSON[]
  args?: TypeJSON[]
}

const setOf = (items: fc.Arbitrary<unknown[]>): fc.Arbitrary<Value> => items.map(setOfNow)

/** Mostly an argument of the declared type (so calls get past the operand checks), sometimes anything. */
function argument(type: TypeJSON): fc.Arbitrary<Value> {
  const typed = (): fc.Arbitrary<Value> => {
    switch (type.type) {
      case 'string':
        return text.map((v) => fromJS(v))
      case 'number':
        return number.map((v) => fromJS(v))
      case 'boolean':
        return fc.boolean().map((v) => fromJS(v))
      case 'null':
        return fc.constant(fromJS(null))
      case 'array':
        return fc.array(json, { maxLength: 4 }).map((v) => fromJS(v))
      case 'set':
        return setOf(fc.array(json, { maxLength: 4 }))
      case 'object':
        return fc
          .dictionary(fc.oneof(text, fc.constantFrom('a', 'b')), json, { maxKeys: 4 })
          .map((v) => fromJS(v))
      case 'any':
        return type.of && type.of.length > 0 ? fc.oneof(...type.of.map(argument)) : value
      default:
        return value
    }
  }
  return fc.oneof({ weight: 4, arbitrary: typed() }, { weight: 1, arbitrary: value })
}

// Built-ins left out: they reach the network or the clock of the machine running the test.
const SKIPPED = new Set(['http.send', 'net.lookup_ip_addr', 'opa.runtime', 'time.now_ns', 'trace', 'print'])

const builtins = DEFAULT_BUILTINS.filter(
  (b): b is FunctionBuiltin | RelationBuiltin =>
    (b.kind === 'function' || b.kind === 'relation') && !SKIPPED.has(b.name),
)

function declaredArgs(b: FunctionBuiltin | RelationBuiltin): TypeJSON[] {
  const args = (typeToJSON(b.decl) as unknown as TypeJSON).args ?? []
  return Array.from({ length: b.arity }, (_, i) => args[i] ?? { type: 'any' })
}

describe('every built-in under generated arguments', () => {
  it('answers or fails with a built-in error, never a crash', () => {
    const ctx = testContext()
    let answered = 0
    for (const b of builtins) {
      fc.assert(
        fc.property(fc.tuple(...declaredArgs(b).map(argument)), (args) => {
          try {
            if (b.kind === 'relation') callRelation(b, ctx, args)
            else callBuiltin(b, ctx, args)
            answered++
          } catch (err) {
            const cause = err instanceof BuiltinCallError ? err.cause : err
            const escaped = cause instanceof TypeError || cause instanceof RangeError
            expect(escaped, `${b.name}(${args.map(String).join(', ')}): ${(err as Error).message}`).toBe(
              false,
            )
            expect(err).toBeInstanceOf(BuiltinCallError)
          }
        }),
        { numRuns: 200, seed: 20261122 },
      )
    }
    expect(builtins.length).toBeGreaterThan(150)
    expect(answered).toBeGreaterThan(1000)
  })
})
