/**
 * `unknowns` and `mask_rule` from `# METADATA` annotations: found along the annotation chain of the
 * rule the request names (its rule and document scopes, then its package, then enclosing packages'
 * `subpackages` scope), read from the `compile:` section or, as older policies write them, `custom:`.
 */
import type { Annotations, Module, RefTerm, Rule, Term } from '../core/rego/syntax/ast.js'
import { type AstErrorJson, astError } from './errors.js'
import { refToString } from './print.js'
import { parseRefText, refHasPrefix, sameScalarTerm } from './refs.js'

/** Unknowns found in annotations, or the errors that make them unusable. */
export type AnnotationUnknowns = { unknowns: RefTerm[] } | { errors: AstErrorJson[] }

/** The mask rule found in annotations (undefined when none), or why it is unusable. */
export type AnnotationMaskRule = { maskRule: RefTerm | undefined } | { errors: AstErrorJson[] }

/** The first rule whose full path is `ref`, with its module. */
export function findRule(
  modules: readonly Module[],
  ref: RefTerm,
): { module: Module; rule: Rule } | undefined {
  for (const module of modules) {
    for (const rule of module.rules) if (ruleIsAt(module, rule, ref)) return { module, rule }
  }
  return undefined
}

/** True when `rule` of `module` has exactly the path `ref` (`data.<package>.<head ref>`). */
function ruleIsAt(module: Module, rule: Rule, ref: RefTerm): boolean {
  const path = [...module.package.path, ...rule.head.ref.map(headPart)]
  return path.length === ref.value.length && path.every((t, i) => sameScalarTerm(t, ref.value[i]))
}

function headPart(term: Term, index: number): Term {
  return index === 0 && term.type === 'var' ? { type: 'string', value: term.value } : term
}

/**
 * The annotation chain of the rule at `ref`, most specific first: its `rule`-scoped block, `document`
 * blocks of every rule at the same path (any module), its package's `package` blocks, then
 * `subpackages` blocks from its package up to the root.
 */
export function annotationChain(
  modules: readonly Module[],
  ref: RefTerm,
): { chain: Annotations[]; module?: Module } {
  const found = findRule(modules, ref)
  if (!found) return { chain: [] }
  const chain: Annotations[] = []
  const add = (a: Annotations) => {
    if (!chain.includes(a)) chain.push(a)
  }
  for (const a of found.rule.annotations ?? []) if (a.scope === 'rule') add(a)
  for (const module of modules) {
    for (const rule of module.rules) {
      for (const a of rule.annotations ?? []) {
        if (a.scope === 'document' && ruleIsAt(module, rule, ref)) add(a)
      }
    }
  }
  const pkg = found.module.package.path
  for (const module of modules) {
    if (samePath(module.package.path, pkg))
      for (const a of module.annotations) if (a.scope === 'package') add(a)
  }
  for (let length = pkg.length; length >= 1; length--) {
    const prefix = pkg.slice(0, length)
    for (const module of modules) {
      if (!samePath(module.package.path, prefix)) continue
      for (const a of module.annotations) if (a.scope === 'subpackages') add(a)
    }
  }
  return { chain, module: found.module }
}

function samePath(a: readonly Term[], b: readonly Term[]): boolean {
  return a.length === b.length && refHasPrefix(a, b)
}

/**
 * The union of every `unknowns` list along the chain (request unknowns replace these; they are not
 * merged). Each must start with `input` or `data`.
 */
export function unknownsFromAnnotations(modules: readonly Module[], ref: RefTerm): AnnotationUnknowns {
  const { chain } = annotationChain(modules, ref)
  const unknowns: RefTerm[] = []
  const errors: AstErrorJson[] = []
  for (const a of chain) {
    for (const entry of rawUnknowns(a)) {
      const error = (message: string) => errors.push(astError('invalid_unknown', blockLocation(a), message))
      let parts: Term[]
      if (typeof entry === 'string') {
        try {
          parts = parseRefText(entry).value
        } catch {
          error(`unknowns must be valid refs: ${entry}`)
          continue
        }
      } else {
        parts = entry
      }
      const head = parts[0]
      if (head?.type !== 'var' || (head.value !== 'input' && head.value !== 'data')) {
        error(`unknowns must be prefixed with \`input\` or \`data\`: ${refToString(parts)}`)
        continue
      }
      if (!unknowns.some((u) => samePath(u.value, parts))) unknowns.push({ type: 'ref', value: parts })
    }
  }
  return errors.length > 0 ? { errors } : { unknowns }
}

/** The `unknowns` of one block: parsed refs from `compile:`, else the strings under `custom:`. */
function rawUnknowns(a: Annotations): Array<Term[] | string> {
  if (a.compile?.unknowns) return a.compile.unknowns
  const custom = a.custom?.unknowns
  if (!Array.isArray(custom)) return []
  return custom.map((u) => (typeof u === 'string' ? u : JSON.stringify(u)))
}

/**
 * The first `mask_rule` along the chain; a relative one (`masks`) is resolved in the package of the
 * rule the request names.
 */
export function maskRuleFromAnnotations(modules: readonly Module[], ref: RefTerm): AnnotationMaskRule {
  const { chain, module } = annotationChain(modules, ref)
  for (const a of chain) {
    let parts: Term[] | undefined = a.compile?.maskRule
    if (!parts && a.custom && 'mask_rule' in a.custom) {
      const raw = a.custom.mask_rule
      const loc = blockLocation(a)
      if (typeof raw !== 'string') {
        return {
          errors: [
            astError(
              'invalid_mask_rule',
              loc,
              `mask_rule must be a valid ref string: ${JSON.stringify(raw)}`,
            ),
          ],
        }
      }
      try {
        parts = parseRefText(raw).value
      } catch (err) {
        return {
          errors: [
            astError('invalid_mask_rule', loc, `mask_rule was not a valid ref: ${(err as Error).message}`),
          ],
        }
      }
    }
    if (!parts) continue
    return { maskRule: resolveInPackage(parts, module?.package.path ?? []) }
  }
  return { maskRule: undefined }
}

/** `data.x.y` as is; anything else (`masks`, `a.b`) below `pkg` (`data.filters.masks`). */
export function resolveInPackage(parts: readonly Term[], pkg: readonly Term[]): RefTerm {
  const head = parts[0]
  if (head?.type === 'var' && head.value === 'data') return { type: 'ref', value: [...parts] }
  const relative = parts.map((t, i) =>
    i === 0 && t.type === 'var' ? { type: 'string' as const, value: t.value } : t,
  )
  return { type: 'ref', value: [...pkg, ...relative] }
}

// OPA reports annotation errors at the METADATA comment, column 1.
function blockLocation(a: Annotations): { file: string; row: number; col: number } | undefined {
  return a.location ? { file: a.location.file, row: a.location.row, col: 1 } : undefined
}
