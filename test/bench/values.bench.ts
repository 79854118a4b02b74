/**
 * Value model figures: JSON parsing (fast path vs lossless path vs plain JSON.parse as baseline),
 * object lookups, set membership with composite elements, hashing and sorting, and a few
 * built-in calls, each in ns/op after warm-up. Bounded in count and time.
 */

import { createBuiltinContext } from '../../core/rego/builtins/context.js'
import type { FunctionBuiltin } from '../../core/rego/builtins/define.js'
import { callBuiltin, DEFAULT_BUILTINS, indexBuiltins } from '../../core/rego/builtins/registry.js'
import { compareValues, hashValue, parseJSON, Value } from '../../core/rego/values/index.js'

function measure(label: string, ops: number, fn: () => unknown): number {
  for (let i = 0; i < Math.min(ops, 1000); i++) fn()
  const start = process.hrtime.bigint()
  let n = 0
  const deadline = Date.now() + 1_500
  while (n < ops && Date.now() < deadline) {
    fn()
    n++
  }
  const ns = Number(process.hrtime.bigint() - start) / n
  console.log(`   ${label.padEnd(48)} ${ns.toFixed(0).padStart(9)} ns/op  (${n} ops)`)
  return ns
}

export async function run(): Promise<void> {
  const doc = JSON.stringify({
    users: Array.from({ length: 200 }, (_, i) => ({
      id: `user-${i}`,
      roles: ['a', 'b', `r${i % 7}`],
      age: i,
      score: i / 3,
    })),
  })
  const bigDoc = doc.replace('"age":0', '"age":123456789012345678901234567890')
  measure('JSON.parse (baseline), 200 users', 2_000, () => JSON.parse(doc))
  measure('parseJSON fast path, 200 users', 2_000, () => parseJSON(doc))
  measure('parseJSON lossless path (one big int), 200 users', 500, () => parseJSON(bigDoc))

  const obj = Value.record(Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`key-${i}`, i])))
  const map = new Map(Array.from({ length: 1000 }, (_, i) => [`key-${i}`, i]))
  measure('Map.get string key (baseline)', 1_000_000, () => map.get('key-500'))
  measure('ObjectValue.get string key', 1_000_000, () => obj.get('key-500'))
  const set = Value.set(Array.from({ length: 1000 }, (_, i) => [i, `x${i}`]))
  measure('SetValue.has composite element', 300_000, () => set.has([500, 'x500']))
  measure('hashValue nested object', 300_000, () => hashValue(Value.record({ a: [1, 2, 'x'], b: 'y' })))
  const items = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000)
  measure('sort 1000 numbers with compareValues', 2_000, () => [...items].sort(compareValues))

  const index = indexBuiltins(DEFAULT_BUILTINS)
  const ctx = createBuiltinContext()
  const call = (name: string, args: Value[]) => callBuiltin(index.get(name) as FunctionBuiltin, ctx, args)
  measure('plus(1, 2)', 1_000_000, () => call('plus', [1, 2]))
  measure('sprintf("%s-%d", ["a", 1])', 300_000, () => call('sprintf', ['%s-%d', ['a', 1]]))
  measure('regex.match (cached RE2)', 300_000, () => call('regex.match', ['^user-[0-9]+$', 'user-42']))
  measure('glob.match("*.example.com")', 300_000, () =>
    call('glob.match', ['*.example.com', ['.'], 'api.example.com']),
  )
  measure('time.parse_rfc3339_ns', 100_000, () =>
    call('time.parse_rfc3339_ns', ['2017-06-02T19:00:00-07:00']),
  )
}
