/**
 * Compiling a large policy (the compiler's stages, then the evaluator's rule tree) on the parse
 * bench's generated policies of 0.25, 1 and 3 MB (about 2,500, 10,000 and 30,000 rules in one
 * package): milliseconds per 1,000 rules should stay flat as the policy grows. The baseline is
 * parsing the same text in the same run; the slowest stages are listed for the largest size.
 * ResolveRefs once compared every rule with every other rule of its package: 11.7 s of the
 * 14.9 s a 1 MB policy took, 0.2 s of 3.1 s since.
 *
 * Then shapes hand-written policies rarely have, each at two sizes so that growth shows: one rule
 * body of many expressions (safety reordering was cubic: 27 s for 1,000; 2.3 s for 500 written last
 * expression first, which needs one pass per expression), a chain of rules each
 * reading the next (the type checker and the recursion check overflowed the stack at 500 and
 * 10,000) and a cycle through all of them (the recursion error and its path).
 */
import { RegoErrors } from '../../core/rego/errors.js'
import { compilePolicy } from '../../core/rego/eval/policy.js'
import { parseModule } from '../../core/rego/syntax/module-parser.js'
import { generatePolicy } from './parse.bench.js'

const SIZES_KB = [256, 1024, 3072]

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

/** Unusual shapes: a Rego text of size `n` each. */
const SHAPES: Array<[string, number[], (n: number) => string]> = [
  [
    'one body of n expressions',
    [1000, 4000],
    (n) =>
      `package s\np := x${n} if {\n\tx0 := input.a\n${range(n)
        .map((i) => `\tx${i + 1} := x${i} + 1`)
        .join('\n')}\n}`,
  ],
  [
    'the same, last expression first',
    [1000, 4000],
    (n) =>
      `package s\np := x${n} if {\n${range(n)
        .map((i) => `\tx${n - i} = x${n - i - 1} + 1`)
        .join('\n')}\n\tx0 = input.a\n}`,
  ],
  [
    'chain of n rules',
    [5000, 20000],
    (n) =>
      `package s\n${range(n)
        .map((i) => `r${i} := data.s.r${i + 1} + 1`)
        .join('\n')}\nr${n} := 0`,
  ],
  [
    'cycle of n rules (an error)',
    [1000, 4000],
    (n) =>
      `package s\n${range(n)
        .map((i) => `r${i} := data.s.r${(i + 1) % n}`)
        .join('\n')}`,
  ],
]

function compileShape(text: string): { parseMs: number; compileMs: number; errors: number } {
  let t0 = performance.now()
  const module = parseModule(text, { file: 'shape.rego' })
  const parseMs = performance.now() - t0
  t0 = performance.now()
  let errors = 0
  try {
    compilePolicy({ 'shape.rego': module })
  } catch (err) {
    if (!(err instanceof RegoErrors)) throw err
    errors = err.errors.length
  }
  return { parseMs, compileMs: performance.now() - t0, errors }
}

export async function run(): Promise<void> {
  console.log('      size |  rules | parse ms | compile ms | compile ms per 1,000 rules')
  let stages: Array<[string, number]> = []
  for (const kb of SIZES_KB) {
    const text = generatePolicy(kb * 1024)
    let t0 = performance.now()
    const module = parseModule(text, { file: 'generated.rego' })
    const parseMs = performance.now() - t0
    t0 = performance.now()
    const policy = compilePolicy({ 'generated.rego': module })
    const compileMs = performance.now() - t0
    const rules = module.rules.length
    console.log(
      `   ${String(kb).padStart(5)} KB | ${String(rules).padStart(6)} | ${parseMs.toFixed(0).padStart(8)} | ${compileMs
        .toFixed(0)
        .padStart(10)} | ${((compileMs / rules) * 1000).toFixed(1).padStart(8)}`,
    )
    stages = [...policy.compiler.metrics].map(([name, ns]) => [name, ns / 1e6] as [string, number])
  }
  const slowest = stages.sort((a, b) => b[1] - a[1]).slice(0, 5)
  console.log(
    `   slowest stages at ${SIZES_KB.at(-1)} KB: ${slowest.map(([n, ms]) => `${n.replace('compile_stage_', '')} ${ms.toFixed(0)} ms`).join(', ')}`,
  )
  console.log(
    '\n   shape                                |      n | parse ms | compile ms | compile ms per 1,000',
  )
  for (const [name, sizes, generate] of SHAPES) {
    for (const n of sizes) {
      const { parseMs, compileMs, errors } = compileShape(generate(n))
      console.log(
        `   ${name.padEnd(36)} | ${String(n).padStart(6)} | ${parseMs.toFixed(0).padStart(8)} | ${compileMs
          .toFixed(0)
          .padStart(
            10,
          )} | ${((compileMs / n) * 1000).toFixed(1).padStart(8)}${errors ? ` (${errors} errors)` : ''}`,
      )
    }
  }
}
