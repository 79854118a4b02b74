/**
 * Evaluation benchmarks: p50/p99 µs per evaluation of a prepared query after warm-up, for an RBAC
 * policy (100 roles x 20 permissions, user with 5 roles), an ABAC policy with `some ... in` over
 * 1,000 resources, and a comprehension over 10,000 items, each at 1x, 10x and 100x data size.
 * The baseline is the same decision written as a plain JavaScript loop.
 */
import { compile, parseModule } from '../../core/rego/index.js'
import { fromJS, type Value } from '../../core/rego/values/index.js'

interface Scenario {
  name: string
  module: string
  query: string
  data: (scale: number) => unknown
  input: (scale: number) => unknown
  baseline: (data: unknown, input: unknown) => unknown
}

const RBAC = `package rbac
import rego.v1

default allow := false

allow if {
	some role in data.user_roles[input.user]
	some perm in data.role_permissions[role]
	perm.action == input.action
	perm.resource == input.resource
}
`

const ABAC = `package abac
import rego.v1

allowed contains r.id if {
	some r in data.resources
	r.owner == input.user
	r.classification in input.clearances
}
`

const COMPREHENSION = `package compr
import rego.v1

big := [x.id | some x in data.items; x.value > 50]
`

type Perm = { action: string; resource: string }

const scenarios: Scenario[] = [
  {
    name: 'rbac',
    module: RBAC,
    query: 'data.rbac.allow',
    data: (scale) => {
      const roles = 100 * scale
      const rolePermissions: Record<string, Perm[]> = {}
      for (let r = 0; r < roles; r++) {
        rolePermissions[`role${r}`] = Array.from({ length: 20 }, (_, p) => ({
          action: p % 2 === 0 ? 'read' : 'write',
          resource: `res${r}-${p}`,
        }))
      }
      const userRoles: Record<string, string[]> = {}
      for (let u = 0; u < 50 * scale; u++)
        userRoles[`user${u}`] = [0, 1, 2, 3, 4].map((i) => `role${(u + i * 7) % roles}`)
      return { role_permissions: rolePermissions, user_roles: userRoles }
    },
    // The last permission of the user's last role: the worst case for a first-match search.
    input: () => ({ user: 'user3', action: 'write', resource: `res${(3 + 28) % 100}-19` }),
    baseline: (data, input) => {
      const d = data as { role_permissions: Record<string, Perm[]>; user_roles: Record<string, string[]> }
      const i = input as { user: string; action: string; resource: string }
      for (const role of d.user_roles[i.user] ?? []) {
        for (const p of d.role_permissions[role] ?? [])
          if (p.action === i.action && p.resource === i.resource) return true
      }
      return false
    },
  },
  {
    name: 'abac',
    module: ABAC,
    query: 'data.abac.allowed',
    data: (scale) => ({
      resources: Array.from({ length: 1000 * scale }, (_, i) => ({
        id: `r${i}`,
        owner: `user${i % 50}`,
        classification: ['public', 'internal', 'secret'][i % 3],
      })),
    }),
    input: () => ({ user: 'user7', clearances: ['public', 'internal'] }),
    baseline: (data, input) => {
      const d = data as { resources: Array<{ id: string; owner: string; classification: string }> }
      const i = input as { user: string; clearances: string[] }
      return new Set(
        d.resources
          .filter((r) => r.owner === i.user && i.clearances.includes(r.classification))
          .map((r) => r.id),
      )
    },
  },
  {
    name: 'comprehension',
    module: COMPREHENSION,
    query: 'data.compr.big',
    data: (scale) => ({
      items: Array.from({ length: 10_000 * scale }, (_, i) => ({ id: i, value: i % 100 })),
    }),
    input: () => ({}),
    baseline: (data) =>
      (data as { items: Array<{ id: number; value: number }> }).items
        .filter((x) => x.value > 50)
        .map((x) => x.id),
  },
]

function percentiles(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0
  return { p50: at(0.5), p99: at(0.99) }
}

function measure(f: () => unknown, budgetMs: number, maxIterations: number): number[] {
  const samples: number[] = []
  const end = performance.now() + budgetMs
  while (samples.length < maxIterations && performance.now() < end) {
    const t0 = process.hrtime.bigint()
    f()
    samples.push(Number(process.hrtime.bigint() - t0) / 1000)
  }
  return samples
}

/** Runs the evaluation benchmarks and prints p50/p99 per scenario and scale. */
export async function run(): Promise<void> {
  console.log('   scenario        scale   regent p50/p99 µs       baseline JS p50 µs   evals')
  for (const sc of scenarios) {
    for (const scale of [1, 10, 100]) {
      if (sc.name === 'comprehension' && scale === 100) continue // 1M items: minutes, not seconds
      const data = sc.data(scale)
      const input = sc.input(scale)
      const policy = compile(
        { [`${sc.name}.rego`]: parseModule(sc.module, { file: `${sc.name}.rego` }) },
        data,
      )
      const query = policy.prepare(sc.query)
      const inputValue: Value = fromJS(input)
      const evalOnce = () => query.evalSync({ input: inputValue })
      const first = evalOnce()
      if (first.results.length === 0) throw new Error(`${sc.name}: query undefined`)
      measure(evalOnce, 300, 2000) // warm-up
      const samples = measure(evalOnce, 1500, 20_000)
      const base = percentiles(measure(() => sc.baseline(data, input), 300, 20_000))
      const { p50, p99 } = percentiles(samples)
      console.log(
        `   ${sc.name.padEnd(14)} ${`${scale}x`.padStart(5)}   ${`${p50.toFixed(1)} / ${p99.toFixed(1)}`.padStart(20)}   ${base.p50.toFixed(2).padStart(18)}   ${String(samples.length).padStart(6)}`,
      )
    }
  }
  const rss = process.memoryUsage().rss / 1024 / 1024
  console.log(`   RSS ${rss.toFixed(0)} MiB`)
}
