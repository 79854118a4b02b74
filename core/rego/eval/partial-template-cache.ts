/**
 * Query templates per policy (partial-template.ts), keyed by query and unknowns, and their
 * confirmation against the evaluator: the first time a rule of a template holds, the request is
 * also answered by the evaluator, and the template is kept only if both gave the same residual.
 * `REGENT_PARTIAL_TEMPLATES=off` turns templates off; `verify` checks every request against the
 * evaluator and throws on a difference (for running the test suites through both paths).
 */
import { toJSONText, type Value } from '../values/index.js'
import { internalError } from './errors.js'
import type { PExpr } from './ir.js'
import type { PartialOptions, PartialResult } from './partial.js'
import { buildTemplate, type QueryTemplate } from './partial-template.js'
import type { FilledTemplate } from './partial-template-fill.js'
import type { Policy } from './policy.js'

const MAX_TEMPLATES_PER_POLICY = 256
const templates = new WeakMap<Policy, Map<string, QueryTemplate | null>>()

type TemplateMode = 'on' | 'off' | 'verify'

function modeOf(v: string | undefined): TemplateMode {
  return v === 'off' || v === 'verify' ? v : 'on'
}

// Read once: reading process.env per query was ~2% of a templated compile request.
const modeFromEnv = modeOf(process.env.REGENT_PARTIAL_TEMPLATES)
let modeOverride: TemplateMode | undefined

/** The mode: `setTemplateMode`'s, else `REGENT_PARTIAL_TEMPLATES` as it was when this module loaded. */
export function templateMode(): TemplateMode {
  return modeOverride ?? modeFromEnv
}

/** Switches the mode in this process (tests and benchmarks compare the paths); undefined: the env's. */
export function setTemplateMode(mode: TemplateMode | undefined): void {
  modeOverride = mode
}

/** Whether the options leave partial evaluation in the shape templates cover. */
export function templateUsable(options: PartialOptions): boolean {
  return (
    templateMode() !== 'off' &&
    !options.shallowInlining &&
    (options.disableInlining ?? []).length === 0 &&
    (options.queryImports ?? []).length === 0 &&
    options.overrides === undefined
  )
}

/** The template of `query` over `unknowns`, built on first use; undefined when it has none. */
export function templateFor(
  policy: Policy,
  query: string,
  body: readonly PExpr[],
  unknowns: readonly Value[][],
): QueryTemplate | undefined {
  let cache = templates.get(policy)
  if (!cache) {
    cache = new Map()
    templates.set(policy, cache)
  }
  const key = keyOf(query, unknowns)
  let t = cache.get(key)
  if (t === undefined) {
    t = buildTemplate(policy, body, unknowns) ?? null
    if (cache.size >= MAX_TEMPLATES_PER_POLICY) cache.clear()
    cache.set(key, t)
  }
  return t ?? undefined
}

/**
 * Compares a filled template with the evaluator's answer: the rules that held are confirmed when
 * both agree; the template is dropped when they do not (thrown in `verify` mode).
 */
export function confirmTemplate(
  policy: Policy,
  query: string,
  unknowns: readonly Value[][],
  filled: FilledTemplate,
  direct: PartialResult,
): void {
  const agree =
    direct.support.length === 0 &&
    JSON.stringify(filled.queries) === JSON.stringify(direct.queries) &&
    filled.failed.length === direct.failedExpressions.length &&
    filled.failed.every((x, i) => x === direct.failedExpressions[i])
  if (agree) {
    for (const r of filled.unverified) r.verified = true
    return
  }
  dropTemplate(policy, query, unknowns)
  if (templateMode() === 'verify') {
    throw internalError(
      `partial evaluation template differs from the evaluator for ${query}:\n` +
        `template: ${JSON.stringify(filled.queries)} failed ${filled.failed.length}\n` +
        `evaluator: ${JSON.stringify(direct.queries)} failed ${direct.failedExpressions.length}`,
      undefined,
    )
  }
}

/** Forgets the template of `query` for `policy`: the evaluator answers that query from now on. */
export function dropTemplate(policy: Policy, query: string, unknowns: readonly Value[][]): void {
  templates.get(policy)?.set(keyOf(query, unknowns), null)
}

// The last verdict of templateAdmits per template: a caller asks with the same `admit` each time.
const admitted = new WeakMap<QueryTemplate, { admit: (builtin: string) => boolean; ok: boolean }>()

/** Whether every built-in `t`'s known steps call is one `admit` accepts (by its name in Rego). */
export function templateAdmits(t: QueryTemplate, admit: (builtin: string) => boolean): boolean {
  const known = admitted.get(t)
  if (known?.admit === admit) return known.ok
  let ok = true
  for (const r of t.rules)
    for (const step of r.steps) if (step.kind === 'call' && !admit(step.builtin.name)) ok = false
  admitted.set(t, { admit, ok })
  return ok
}

// The unknowns' text by array (partial.ts keeps one array per caller's unknowns).
const unknownsText = new WeakMap<readonly Value[][], string>()

function keyOf(query: string, unknowns: readonly Value[][]): string {
  let text = unknownsText.get(unknowns)
  if (text === undefined) {
    text = unknowns.map((u) => toJSONText(u as Value)).join('\n')
    unknownsText.set(unknowns, text)
  }
  return `${query}\n${text}`
}
