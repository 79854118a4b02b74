/**
 * `regent build -O`: decisions per second of an RBAC policy (roles and grants in data) as written
 * (the baseline, measured in the same run) and as `-O 1` and `-O 2` rewrite it, plus the time the
 * rewrite takes. Each measurement is bounded in count and in time; the load average is printed,
 * since the machines are shared.
 */
import { loadavg } from 'node:os'
import { type Bundle, bundleFromParts } from '../../core/bundle/index.js'
import { optimizeBundle } from '../../core/bundle/optimize/optimize.js'
import { compile, type Module, type Policy, parseModule } from '../../core/rego/index.js'
import { fromJS } from '../../core/rego/values/index.js'

const POLICY = `package rbac

default allow := false

allow if user_is_admin

allow if {
	some grant in user_grants
	input.action == grant.action
	input.type == grant.type
}

user_is_admin if "admin" in data.user_roles[input.user]

user_grants contains grant if {
	some role in data.user_roles[input.user]
	some grant in data.role_grants[role]
}
`

function data() {
  const roles = ['admin', 'dev', 'ops', 'audit', 'sales']
  const user_roles: Record<string, string[]> = {}
  for (let u = 0; u < 20; u++)
    user_roles[`user${u}`] = [roles[u % roles.length]!, roles[(u + 2) % roles.length]!]
  const role_grants: Record<string, Array<{ action: string; type: string }>> = {}
  for (const [i, role] of roles.entries())
    role_grants[role] = ['read', 'write', 'delete', 'list'].map((action, j) => ({
      action,
      type: ['doc', 'img', 'db'][(i + j) % 3]!,
    }))
  return { user_roles, role_grants }
}

function policyOf(bundle: Bundle): Policy {
  const modules = new Map<string, Module>()
  for (const m of bundle.modules) modules.set(m.path, parseModule(m.source, { file: m.path }))
  return compile(modules, bundle.data)
}

const INPUTS = Array.from({ length: 64 }, (_, i) =>
  fromJS({
    user: `user${i % 24}`,
    action: ['read', 'write', 'delete', 'list'][i % 4],
    type: ['doc', 'img', 'db'][i % 3],
  }),
)

async function measure(label: string, policy: Policy): Promise<number> {
  const query = policy.query('data.rbac.allow')
  for (const input of INPUTS.slice(0, 16)) await query.eval({ input }) // warm-up
  const budgetMs = 1500
  const maxRuns = 200_000
  const started = performance.now()
  let runs = 0
  while (runs < maxRuns && performance.now() - started < budgetMs) {
    await query.eval({ input: INPUTS[runs % INPUTS.length]! })
    runs++
  }
  const perSecond = runs / ((performance.now() - started) / 1000)
  console.log(
    `   ${label.padEnd(36)} ${Math.round(perSecond).toLocaleString('en')} decisions/s (${runs} runs)`,
  )
  return perSecond
}

/** Runs the benchmark. */
export async function run(): Promise<void> {
  console.log(
    `   load average: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  )
  const original = bundleFromParts({ modules: { 'rbac.rego': POLICY }, data: data() })
  const baseline = await measure('as written (baseline)', policyOf(original))
  for (const level of [1, 2] as const) {
    const started = performance.now()
    const { bundle } = await optimizeBundle(original, { entrypoints: ['rbac/allow'], level })
    const took = performance.now() - started
    const rules = bundle.modules.reduce((n, m) => n + parseModule(m.source, { file: m.path }).rules.length, 0)
    console.log(`   -O ${level}: rewrite took ${took.toFixed(0)} ms, ${rules} rules (as written: 5)`)
    const rate = await measure(`-O ${level}`, policyOf(bundle))
    console.log(`   -O ${level} / baseline: ${(rate / baseline).toFixed(2)}x`)
  }
  console.log(
    `   load average: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  )
}
