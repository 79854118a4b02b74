/**
 * `regent build -O 1|2`: rewrites a bundle's entrypoints by partial evaluation, as OPA's bundle
 * optimizer (`opa build -O`). For each entrypoint in turn, `__result__ = data.<entrypoint>` is
 * partially evaluated with `input` (and data outside the bundle's roots) unknown; the support rules
 * keep their own package paths and replace the rules they were made from, the entrypoint is
 * redefined from the residual queries, synthetic rules (negations) go under the partial namespace,
 * and everything written lands in `optimized/…rego`. Level 1 inlines shallowly (rules that depend
 * on `input` stay rules), level 2 inlines everything it can, as OPA's levels do.
 *
 * Never wrong, sometimes not optimized: an entrypoint is left as written when its rules use a
 * construct the rewrite cannot keep exact (`with` on data), when partial evaluation fails, when the
 * result does not compile, when a merge would drop rules it did not rewrite, or when the optimized
 * policy disagrees with the original on the probe inputs. Each such entrypoint is reported.
 */
import type { Builtin } from '../../rego/builtins/define.js'
import { ruleRef } from '../../rego/compiler/rule-tree.js'
import { groundPrefix } from '../../rego/compiler/terms.js'
import { RegoErrors } from '../../rego/errors.js'
import { evaluate } from '../../rego/eval/api.js'
import { partialEvaluate } from '../../rego/eval/partial.js'
import { compilePolicy, type Policy } from '../../rego/eval/policy.js'
import { formatModule } from '../../rego/format/formatter.js'
import type { Module, Rule } from '../../rego/syntax/ast.js'
import { parseModule } from '../../rego/syntax/module-parser.js'
import { toJSONText } from '../../rego/values/index.js'
import { bundleModuleVersion } from '../bundle-compile.js'
import { rootsContain } from '../roots.js'
import type { Bundle } from '../types.js'
import { entrypointModule, OptimizedFileNames, RESULT_VAR } from './entrypoint-module.js'
import { type ModuleText, mergeModules } from './merge-modules.js'
import { probeInputs } from './probe-inputs.js'
import { pathsOverlap } from './rule-paths.js'
import { entrypointHazard, unknownRefs } from './scan.js'

/** Options of {@link optimizeBundle}. */
export interface OptimizeOptions {
  /** Slash paths (`authz/allow`), optimized in this order. */
  entrypoints: readonly string[]
  /** 1: shallow inlining; 2: full inlining. */
  level: 1 | 2
  /** Package of synthetic support rules (default `partial`). */
  partialNamespace?: string
  builtins?: readonly Builtin[]
  /** Probe inputs the optimized policy must decide as the original did (besides none and `{}`). */
  probeInputs?: readonly unknown[]
  /**
   * Units of work one entrypoint's partial evaluation may take (budget.ts), default 20,000,000:
   * past it the entrypoint is kept as written. A count, not a time, so a build is reproducible.
   */
  instructionLimit?: number
}

const DEFAULT_INSTRUCTION_LIMIT = 20_000_000

/** What happened to one entrypoint. */
export interface EntrypointOutcome {
  entrypoint: string
  optimized: boolean
  /** Why it was left as written (when not optimized). */
  reason?: string
}

/** The optimized bundle and a line per entrypoint. */
export interface OptimizeResult {
  bundle: Bundle
  outcomes: EntrypointOutcome[]
}

/** An entrypoint that is never defined (OPA fails the build the same way). */
export class UndefinedEntrypointError extends Error {}

/** The partial namespace is already used by the bundle's own packages. */
export class NamespaceTakenError extends Error {}

/**
 * Optimizes `bundle` (which must compile). The result has the same data; its modules are the
 * originals minus the replaced rules plus the `optimized/` files; the manifest gets the partial
 * namespace as a root when its roots would not cover it, and loses its revision (as OPA's).
 * @throws UndefinedEntrypointError when an entrypoint has no residual at all.
 */
export async function optimizeBundle(bundle: Bundle, options: OptimizeOptions): Promise<OptimizeResult> {
  const namespace = options.partialNamespace ?? 'partial'
  let modules: ModuleText[] = bundle.modules.map((m) => ({
    path: m.path,
    source: m.source,
    regoVersion: bundleModuleVersion(bundle.manifest, m.path),
  }))
  const roots = bundle.manifest.roots ?? ['']
  const parsed = parseAll(modules)
  for (const module of parsed.values()) {
    const pkg = module.package.path.slice(1).map((t) => String(t.value))
    if (pathsOverlap(pkg, namespace.split('.')))
      throw new NamespaceTakenError(
        `--partial-namespace ${namespace}: the bundle already has package ${pkg.join('.')}; choose another namespace`,
      )
  }
  const unknowns = ['input', ...unknownRefs(parsed.values(), roots)]
  const probes = [...probeInputs(parsed.values(), bundle.data), ...(options.probeInputs ?? [])]
  const names = new OptimizedFileNames()
  const outcomes: EntrypointOutcome[] = []
  for (const [i, entrypoint] of options.entrypoints.entries()) {
    const outcome = await optimizeEntrypoint(modules, entrypoint, {
      ...options,
      data: bundle.data,
      // NOTE(B22): each entrypoint's synthetic rules get their own package, so a later
      // entrypoint's `__not…__` rule can never replace an earlier one's of the same name.
      namespace: i === 0 ? namespace : `${namespace}.e${i}`,
      unknowns,
      names,
      probeInputs: probes,
    })
    outcomes.push(outcome.outcome)
    if (outcome.modules) modules = outcome.modules
  }
  const changed = outcomes.some((o) => o.optimized)
  if (!changed) return { bundle, outcomes }
  return { bundle: rebuild(bundle, modules, namespace), outcomes }
}

interface StepOptions extends OptimizeOptions {
  data: Record<string, unknown>
  namespace: string
  unknowns: string[]
  names: OptimizedFileNames
}

async function optimizeEntrypoint(
  modules: readonly ModuleText[],
  entrypoint: string,
  options: StepOptions,
): Promise<{ outcome: EntrypointOutcome; modules?: ModuleText[] }> {
  const kept = (reason: string) => ({ outcome: { entrypoint, optimized: false, reason } })
  const path = entrypoint.replace(/^\//, '').split('/')
  const before = policyOf(modules, options)
  const rules = rulesAt(before, path)
  if (rules.length === 0) return kept('a package or a path with no rules of its own is kept as written')
  if (rules.some((r) => r.head.args !== undefined))
    return kept('a function is kept as written (only documents are partially evaluated)')
  const hazard = entrypointHazard(before.compiler.graph, rules)
  if (hazard) return kept(hazard)
  const ref = `data${path.map((p) => `[${JSON.stringify(p)}]`).join('')}`
  const partial = (shallowInlining: boolean) =>
    partialEvaluate(before, `${RESULT_VAR} = ${ref}`, {
      unknowns: options.unknowns,
      shallowInlining,
      partialNamespace: options.namespace,
      skipPartialNamespace: true,
      instructionLimit: options.instructionLimit ?? DEFAULT_INSTRUCTION_LIMIT,
    })
  let residual: Awaited<ReturnType<typeof partialEvaluate>>
  try {
    residual = await partial(options.level <= 1)
  } catch (err) {
    const code = (err as { code?: unknown }).code
    return kept(
      `partial evaluation failed: ${typeof code === 'string' ? `${code}: ` : ''}${(err as Error).message}`,
    )
  }
  if (residual.queries.length === 0)
    throw new UndefinedEntrypointError(`undefined entrypoint ${ref}: it is never defined, whatever the input`)
  const written: Module[] = [...residual.support]
  const main = entrypointModule(path, residual.queries)
  if (main) written.push(main)
  if (written.length === 0) return kept('partial evaluation left it as it is')
  const taken = new Set(modules.map((m) => m.path))
  const added: ModuleText[] = []
  try {
    for (const module of written) {
      const pkg = module.package.path.slice(1).map((t) => String(t.value))
      const file = options.names.next(pkg, taken)
      taken.add(file)
      const source = formatModule(module, { regoVersion: 'v1' })
      parseModule(source, { file, regoVersion: 'v1' })
      added.push({ path: file, source, regoVersion: 'v1' })
    }
  } catch (err) {
    return kept(`the residual does not print as Rego: ${(err as Error).message}`)
  }
  const merged = mergeModules(modules, added)
  if ('refused' in merged) return kept(merged.refused)
  let after: Policy
  try {
    after = policyOf(merged.modules, options)
  } catch (err) {
    const message = err instanceof RegoErrors ? err.toString() : (err as Error).message
    return kept(`the rewritten policy does not compile: ${message}`)
  }
  const disagreement = await probe(before, after, ref, options.probeInputs ?? [])
  if (disagreement) return kept(disagreement)
  return { outcome: { entrypoint, optimized: true }, modules: merged.modules }
}

function parseAll(modules: readonly ModuleText[]): Map<string, Module> {
  const parsed = new Map<string, Module>()
  for (const m of modules)
    parsed.set(m.path, parseModule(m.source, { file: m.path, regoVersion: m.regoVersion }))
  return parsed
}

function policyOf(modules: readonly ModuleText[], options: StepOptions): Policy {
  return compilePolicy(
    parseAll(modules),
    options.data,
    options.builtins ? { builtins: options.builtins } : {},
  )
}

/** The compiled rules whose ground path is the entrypoint or below it. */
function rulesAt(policy: Policy, path: readonly string[]): Rule[] {
  const out: Rule[] = []
  policy.compiler.ruleTree.depthFirst((node) => {
    for (const entry of node.rules) {
      const ground = groundPrefix(ruleRef(entry))
        .slice(1)
        .map((t) => (t.type === 'string' ? t.value : JSON.stringify(t.value)))
      if (ground.length >= path.length && path.every((p, i) => ground[i] === p)) out.push(entry.rule)
    }
    return false
  })
  return out
}

/**
 * The decisions of both policies for no input, `{}` and the probe inputs (probe-inputs.ts); a line
 * saying where they differ, or undefined. A last guard against a rewrite that compiles but decides
 * otherwise.
 */
async function probe(before: Policy, after: Policy, ref: string, inputs: readonly unknown[]) {
  const query = `${RESULT_VAR} = ${ref}`
  for (const input of [undefined, {}, ...inputs]) {
    const [a, b] = await Promise.all([decide(before, query, input), decide(after, query, input)])
    if (a !== b)
      return `the rewritten policy decided ${b} instead of ${a} for input ${JSON.stringify(input) ?? 'none'}`
  }
  return undefined
}

async function decide(policy: Policy, query: string, input: unknown): Promise<string> {
  try {
    const run = await evaluate(query, input, { policy })
    const values = run.results.map((r) => {
      const v = r.bindings.get(RESULT_VAR)
      return v === undefined ? 'undefined' : toJSONText(v)
    })
    return values.length === 0 ? 'undefined' : values.sort().join(' | ')
  } catch (err) {
    return `error ${(err as { code?: string }).code ?? (err as Error).message}`
  }
}

function rebuild(bundle: Bundle, modules: readonly ModuleText[], namespace: string): Bundle {
  const encoder = new TextEncoder()
  const sorted = [...modules].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const roots = bundle.manifest.roots ?? ['']
  const nsRoot = namespace.split('.').join('/')
  const manifest = { ...bundle.manifest }
  delete manifest.revision
  if (!rootsContain(roots, nsRoot)) manifest.roots = [...roots, nsRoot]
  // Written modules are Rego v1; say so when the bundle's default is v0.
  if (manifest.rego_version === 0) {
    const versions = { ...manifest.file_rego_versions }
    for (const m of sorted)
      if (m.regoVersion === 'v1' && m.path.startsWith('optimized/')) versions[m.path] = 1
    manifest.file_rego_versions = versions
  }
  const { manifestRaw: _, ...rest } = bundle
  return {
    ...rest,
    manifest,
    modules: sorted.map((m) => ({ path: m.path, source: m.source, raw: encoder.encode(m.source) })),
  }
}
