import { describe, expect, it } from 'vitest'
import { NdBuiltinCache } from '../../../../core/rego/builtins/nd-builtin-cache.js'
import { BUILTINS_WITH_STORES } from '../../../../core/rego/builtins/registry.js'
import { compile, parseModule } from '../../../../core/rego/index.js'
import { parseJSON, toJS, toJSONText } from '../../../../core/rego/values/index.js'
import { testContext } from './helpers.js'

/** Evaluates `query` over a policy whose built-ins go through `cache`. */
async function run(cache: NdBuiltinCache, query: string): Promise<string> {
  const module = parseModule('package p\n\nnow := time.now_ns()\n\nroll := rand.intn("dice", 1000000)\n', {
    file: 'p.rego',
  })
  const policy = compile({ 'p.rego': module }, {}, { builtins: cache.wrap(BUILTINS_WITH_STORES) })
  const { results } = await policy.query(query).eval({ ctx: testContext({ allowNet: [] }) })
  return toJSONText(results[0]!.expressions[0]!.value)
}

describe('NdBuiltinCache', () => {
  it('records the answers of non-deterministic built-ins in OPA shape', async () => {
    const cache = new NdBuiltinCache()
    const roll = await run(cache, 'data.p.roll')
    const recorded = toJS(cache.toValue()) as Record<string, Record<string, unknown>>
    expect(recorded['rand.intn']).toEqual({ '["dice", 1000000]': Number(roll) })
    expect(Object.keys(recorded)).toEqual(['rand.intn'])
  })

  it('answers seeded calls with the seeded value, whatever the spacing of the key', async () => {
    const seeded = NdBuiltinCache.fromJson(
      parseJSON('{"time.now_ns": {"[]": 1600000000000000001}, "rand.intn": {"[\\"dice\\",1000000]": 42}}'),
    )
    expect(await run(seeded, 'data.p.roll')).toBe('42')
    expect(await run(seeded, 'data.p.now')).toBe('1600000000000000001')
    // Numbers a double cannot hold come back with every digit.
    expect(toJSONText(seeded.toValue())).toContain('1600000000000000001')
  })

  it('refuses a cache whose entries are not objects', () => {
    expect(() => NdBuiltinCache.fromJson({ 'time.now_ns': 5 } as never)).toThrow(
      /nd_builtin_cache\.time\.now_ns must be an object/,
    )
  })
})
