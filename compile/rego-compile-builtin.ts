/**
 * `rego.compile(request)`: the compile endpoint's SQL answer from inside a Rego test, as EOPA's
 * `eopa test` and `eopa eval` offer it (docs/compile.md, "Testing filters"; compile-details §15).
 *
 * It partially evaluates `request.query` against the calling test's own policy, with the caller's
 * `input` and `data` (so `with input.x as …` and `with data.y as …` apply), unknowns taken only from
 * the queried rule's `compile` annotations, checks the residual against the SQL dialect's fragment,
 * and renders the `WHERE` clause:
 *
 *   {"query": "WHERE …"}             a condition ("" when every row passes);
 *   + "masks": <value or null>        when a mask rule is named (argument or annotation);
 *   undefined                         when no row passes;
 *   {"errors": set of errors}         unusable annotations, or fragment errors with raise_error false;
 *   {"error": "…"}                    a residual the dialect cannot write.
 *
 * Fragment errors raise (the test errors) unless `raise_error` is false. Only SQL targets exist
 * (`sql+postgresql|mysql|sqlserver|sqlite|sqlite-internal`); `ucast+…` is refused as the reference does.
 */
import type { BuiltinCaller, BuiltinContext } from '../core/rego/builtins/context.js'
import { defineBuiltin } from '../core/rego/builtins/define.js'
import { BuiltinError } from '../core/rego/builtins/errors.js'
import { objectOperand } from '../core/rego/builtins/operands.js'
import { evalError } from '../core/rego/eval/errors.js'
import { partialEvaluateSync } from '../core/rego/eval/partial.js'
import { Policy } from '../core/rego/eval/policy.js'
import type { Location, Module, RefTerm } from '../core/rego/syntax/ast.js'
import { t } from '../core/rego/types/index.js'
import { fromJS, isObject, ObjectValue, SetValue, type Value } from '../core/rego/values/index.js'
import { maskRuleFromAnnotations, unknownsFromAnnotations } from './annotations.js'
import { valueToJson } from './backend.js'
import { type AstErrorJson, CompileFailure } from './errors.js'
import { checkFragments } from './fragments/check.js'
import { ConstraintSet } from './fragments/constraints.js'
import { shortNames, type TableMappings } from './mappings.js'
import { refToString } from './print.js'
import { parseRefText, RefSyntaxError } from './refs.js'
import { renderSql, SqlRenderError } from './sql/index.js'
import type { SqlDialect, Target } from './types.js'
import { queriesToUcast } from './ucast.js'

const DIALECTS: ReadonlySet<string> = new Set([
  'postgresql',
  'mysql',
  'sqlserver',
  'sqlite',
  'sqlite-internal',
])

/** The built-in, for `regent test` and `regent eval` (never the relay or the agent). */
export const regoCompile = defineBuiltin({
  name: 'rego.compile',
  category: 'rego',
  description:
    'Compiles a filter rule of the calling policy to an SQL WHERE clause, as POST /v1/compile would (tests only).',
  args: [
    t.named(
      'request',
      t.object(t.string, t.any),
      'query (the rule, `data.…`), target (`sql+<dialect>`), mappings, mask_rule, raise_error',
    ),
  ],
  result: t.named('result', t.object(t.string, t.any), '`query` and `masks`, or `errors` / `error`'),
  nondeterministic: true,
  impl: (ctx, [request], location, caller) => {
    if (!caller || !(caller.policy instanceof Policy)) {
      throw new BuiltinError('rego.compile needs the policy of a test or eval query')
    }
    return compileRequest(ctx, objectOperand(request, 1), caller, caller.policy, location)
  },
})

/**
 * What `rego.compile(request)` answers for `caller` (also used by `filter.helper`): the result object,
 * or undefined when no row passes.
 */
export function compileRequest(
  ctx: BuiltinContext,
  request: ObjectValue,
  caller: BuiltinCaller,
  policy: Policy,
  location: Location | undefined,
): Value | undefined {
  const query = stringField(request, 'query')
  if (query === undefined) throw new BuiltinError('query: a rule ref is required')
  const targetText = stringField(request, 'target') ?? ''
  if (targetText === '') return undefined
  const target = parseTarget(targetText)
  const mappings = mappingsFor(request.get('mappings'), target.dialect)
  const raiseError = request.get('raise_error') !== false

  const rule = ruleRef(query)
  const modules = [...policy.compiler.modules.values()]
  const unknowns = unknownsFromAnnotations(modules, rule)
  if ('errors' in unknowns) return errorsValue(unknowns.errors)
  const maskRule = maskRuleOf(request, modules, rule)
  if (maskRule && 'errors' in maskRule) return errorsValue(maskRule.errors)

  const partial = partialEvaluateSync(
    policy,
    query,
    {
      ...(caller.input !== undefined ? { input: caller.input } : {}),
      unknowns: unknowns.unknowns,
      nondeterministicBuiltins: true,
      ctx,
      overrides: caller.overrides,
      ...(caller.deadline > 0 ? { deadline: caller.deadline } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    },
    caller.asyncResults,
  )
  if (partial.queries.length === 0) return undefined

  const fragmentErrors = checkFragments(partial.queries, {
    constraints: new ConstraintSet([target]),
    shortNames: shortNames(valueToJson(request.get('mappings') ?? null)),
    support: partial.support,
  })
  if (fragmentErrors.length > 0) {
    if (!raiseError) return errorsValue(fragmentErrors)
    throw evalError('eval_builtin_error', compilationFailure(fragmentErrors), location)
  }

  let sql: string
  try {
    const decision = queriesToUcast(partial.queries, mappings)
    sql = renderSql(decision.kind === 'condition' ? decision.node : undefined, target.dialect)
  } catch (err) {
    if (err instanceof SqlRenderError || err instanceof CompileFailure) {
      return objectOf([['error', translationFailure(err)]])
    }
    throw err
  }
  const result = objectOf([['query', sql]])
  if (maskRule) result.set('masks', evaluateMask(policy, maskRule.maskRule, caller, ctx) ?? null)
  return result
}

/** `sql+<dialect>` as a target; anything else is refused with the reference's words. */
function parseTarget(text: string): Target & { kind: 'sql'; dialect: SqlDialect } {
  const [kind, dialect = ''] = text.split('+', 2) as [string, string?]
  // NOTE(regent): the reference's message, typo included, so tests that match on it still pass.
  if (kind === 'ucast') throw new BuiltinError('UCAST not suported for rego.compile() yet')
  if (kind !== 'sql' || !DIALECTS.has(dialect)) {
    throw new BuiltinError(`unsupported target ${JSON.stringify(text)}`)
  }
  return { kind: 'sql', dialect: dialect as SqlDialect, variant: dialect }
}

/** Only `mappings[<dialect>]` counts here (the endpoint also looks up the target kind and the whole object). */
function mappingsFor(mappings: Value | undefined, dialect: SqlDialect): TableMappings | undefined {
  if (!mappings || !isObject(mappings)) return undefined
  const mine = mappings.get(dialect)
  if (!mine || !isObject(mine)) return undefined
  return valueToJson(mine) as TableMappings
}

function ruleRef(query: string): RefTerm {
  try {
    return parseRefText(query)
  } catch (err) {
    if (err instanceof RefSyntaxError) throw new BuiltinError(`query: ${err.message}`)
    throw err
  }
}

/** The `mask_rule` argument (a full `data.…` ref) or, without one, the rule's annotation. */
function maskRuleOf(
  request: ObjectValue,
  modules: readonly Module[],
  rule: RefTerm,
): { maskRule: RefTerm } | { errors: AstErrorJson[] } | undefined {
  const argument = stringField(request, 'mask_rule')
  if (argument !== undefined) {
    if (!argument.startsWith('data.')) {
      throw new BuiltinError(`mask_rule: a full ref (data.…) is required, got ${argument}`)
    }
    return { maskRule: ruleRef(argument) }
  }
  const found = maskRuleFromAnnotations(modules, rule)
  if ('errors' in found) return found
  return found.maskRule ? { maskRule: found.maskRule } : undefined
}

// The mask rule's value for the caller's input and data; undefined when the rule is.
function evaluateMask(
  policy: Policy,
  rule: RefTerm,
  caller: BuiltinCaller,
  ctx: BuiltinContext,
): Value | undefined {
  const run = policy.query(refToString(rule.value)).evalSync(
    {
      ...(caller.input !== undefined ? { input: caller.input } : {}),
      ctx,
      overrides: caller.overrides,
      ...(caller.deadline > 0 ? { deadline: caller.deadline } : {}),
    },
    caller.asyncResults,
  )
  return run.results[0]?.expressions[0]?.value
}

/** OPA's text for compile errors: `N error(s) occurred during compilation:` and one line per error. */
function compilationFailure(errors: readonly AstErrorJson[]): string {
  const head =
    errors.length === 1
      ? '1 error occurred during compilation:'
      : `${errors.length} errors occurred during compilation:`
  const lines = errors.map((e) => {
    const where = e.location ? `${e.location.file}:${e.location.row}: ` : ''
    return `${where}${e.code}: ${e.message}`
  })
  return [head, ...lines].join('\n')
}

/** The errors in band, as a set of `{code, location, message}` objects. */
function errorsValue(errors: readonly AstErrorJson[]): Value {
  const set = new SetValue()
  for (const e of errors) {
    const { details: _, ...plain } = e
    set.add(fromJS(plain))
  }
  return objectOf([['errors', set]])
}

function stringField(request: ObjectValue, key: string): string | undefined {
  const v = request.get(key)
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string') throw new BuiltinError(`${key}: a string is required`)
  return v
}

// The text of a translation error (ucast.ts raises CompileFailures, the renderer SqlRenderErrors):
// each error's message, or the failure's own.
function translationFailure(err: SqlRenderError | CompileFailure): string {
  if (err instanceof CompileFailure && err.errors && err.errors.length > 0) {
    return err.errors.map((e) => e.message).join('; ')
  }
  return err.message
}

function objectOf(entries: ReadonlyArray<[string, Value]>): ObjectValue {
  const o = new ObjectValue()
  for (const [k, v] of entries) o.set(k, v)
  return o
}
