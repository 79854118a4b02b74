/**
 * `regent lint` throughput: the engine over 1,000 generated policy files (files/s), beside the
 * baseline of only parsing them in the same run (the lint engine parses too, so the difference is
 * what the rules cost). Each figure is the best and the median of 3 rounds after a warm-up round;
 * the slowest rules of the last round are listed from the engine's own timers (`--metrics`).
 * Bounded: 1,000 files × 5 rounds of each, and a round stops early after 60 s.
 */

import { FILTERING_RULES } from '../../cli/lint/filtering-rules.js'
import { BUILTIN_LINT_RULES } from '../../core/lint/builtin-rules.js'
import { emptyConfig } from '../../core/lint/config.js'
import { lint } from '../../core/lint/engine.js'
import { parseModuleWithErrors } from '../../core/rego/syntax/module-parser.js'

const FILES = 1_000
const ROUNDS = 3
const ROUND_LIMIT_MS = 60_000

/** A policy file of about 40 lines using most of what the rules look at, a few violations included. */
function policyFile(i: number): { file: string; text: string } {
  const text = `package bench.p${i % 50}

import data.lib.helpers

default allow_${i} := false

allow_${i} if {
\tsome role in input.user.roles
\trole == "admin_${i}"
\thelpers.ok(input.user)
}

allow_${i} if {
\tinput.request.path[_] == "public"
\tinput.request.method == "GET"
}

deny_${i} contains msg if {
\tsome item in input.items
\titem.price > ${i}
\tmsg := sprintf("item %v too expensive", [item.name])
}

names_${i} := [name | some u in input.users; name := u.name; startswith(name, "a")]

total_${i} := sum([x.price | some x in input.items])

f_${i}(a, b) := a + b if a > b

f_${i}(a, b) := a - b if a <= b

is_admin_${i} if input.user.role == "admin"
`
  return { file: `policies/p${i}.rego`, text }
}

function stats(rates: number[]): string {
  const sorted = [...rates].sort((a, b) => b - a)
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0
  return `best ${(sorted[0] ?? 0).toFixed(0).padStart(6)} files/s, median ${median.toFixed(0).padStart(6)} files/s`
}

async function round(
  label: string,
  files: ReturnType<typeof policyFile>[],
  fn: (f: typeof files) => Promise<void>,
) {
  const started = performance.now()
  await fn(files)
  const ms = performance.now() - started
  return { label, rate: (files.length / ms) * 1000, ms }
}

export async function run(): Promise<void> {
  const files = Array.from({ length: FILES }, (_, i) => policyFile(i))
  const parseOnly = async (list: typeof files) => {
    for (const { file, text } of list) parseModuleWithErrors(text, { file })
  }
  let lastMetrics: Record<string, number> = {}
  let violations = 0
  const lintAll = async (list: typeof files) => {
    const { report } = await lint({
      files: list,
      rules: [...BUILTIN_LINT_RULES, ...FILTERING_RULES],
      config: emptyConfig(),
      metrics: true,
      deadline: Date.now() + ROUND_LIMIT_MS,
    })
    lastMetrics = report.metrics ?? {}
    violations = report.violations.length
  }
  // Warm-up (JIT), not counted.
  await parseOnly(files)
  await lintAll(files)
  const parseRates: number[] = []
  const lintRates: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    parseRates.push((await round('parse', files, parseOnly)).rate)
    lintRates.push((await round('lint', files, lintAll)).rate)
  }
  console.log(`   ${FILES} files, ${violations} violations per lint run`)
  console.log(`   parse only (baseline)      ${stats(parseRates)}`)
  console.log(
    `   lint, ${BUILTIN_LINT_RULES.length + FILTERING_RULES.length} rules          ${stats(lintRates)}`,
  )
  const slowest = Object.entries(lastMetrics)
    .filter(([k]) => k.startsWith('timer_lint_rule_'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
  console.log('   slowest rules (last round):')
  for (const [k, ns] of slowest)
    console.log(
      `     ${k.replace('timer_lint_rule_', '').replace(/_ns$/, '').padEnd(40)} ${(ns / 1e6).toFixed(1)} ms`,
    )
}
