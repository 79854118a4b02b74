/**
 * The fragment checks run on partial evaluation's residual queries: every expression must be something
 * the requested targets can express. Each expression is checked twice, once as a statement (`not`,
 * `every`, `with`, naked terms) and once as a built-in call (which call, which operands); each check
 * yields at most one `pe_fragment_error`, with the reference implementation's messages.
 *
 * Locations are chosen as the reference chooses them (docs/compile.md, "Fragment errors"):
 * statement errors and errors about support rules point at the start of the expression (for a `not`,
 * the `not` keyword); built-in errors at the operator's token when the operator has one (`<=`, `in`,
 * `startswith(`), else at the start of the expression (a `==`, rewritten to `=`, has none); operand
 * errors at the operator's token, else at the operand. An expression partial evaluation built anew
 * (an equality copy propagation put back) has no location, and an error about it has none either,
 * as in the reference (its check table pins `existence of field: …` without one).
 */
import type { Body, Expr, Location, Module, Term } from '../../core/rego/syntax/ast.js'
import { isTerm, MEMBER, MEMBER_WITH_KEY, operatorName } from '../../core/rego/syntax/ast.js'
import { type AstErrorJson, fragmentError } from '../errors.js'
import { callToString, exprToString, refToString, termToString } from '../print.js'
import type { ConstraintSet } from './constraints.js'
import { isSupportRef, supportRuleMessage } from './support.js'

/** What the checks need besides the residual. */
export interface FragmentCheckContext {
  constraints: ConstraintSet
  /** Short names (`input.name`) that table mappings map to a table with `$table`. */
  shortNames: ReadonlySet<string>
  /** The support modules partial evaluation produced. */
  support: readonly Module[]
}

const COMPARISONS: ReadonlySet<string> = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte'])
const UNKNOWN_FIRST: ReadonlySet<string> = new Set(['startswith', 'endswith', 'contains', MEMBER])
// Built-ins whose name reads better differently in messages.
const DISPLAY_NAMES: Readonly<Record<string, string>> = { [MEMBER]: 'in' }

/**
 * Every fragment error of `queries`, in order (query by query, expression by expression, statement
 * check before built-in check). An empty list means the residual is within the targets' fragment.
 */
export function checkFragments(queries: readonly Body[], ctx: FragmentCheckContext): AstErrorJson[] {
  const errors: AstErrorJson[] = []
  for (const body of queries) {
    for (const expr of body) {
      const statement = checkStatement(expr, ctx)
      if (statement) errors.push(statement)
      const call = checkCall(expr, ctx)
      if (call) errors.push(call)
    }
  }
  return errors
}

/** `not`, `every`, `with` and naked terms. */
function checkStatement(expr: Expr, ctx: FragmentCheckContext): AstErrorJson | undefined {
  const terms = expr.terms
  const isCall = Array.isArray(terms)
  // The common case (a call, not negated, no `with`) passes without computing any location.
  if (isCall && !expr.negated && !(expr.with && expr.with.length > 0)) return undefined
  const start = expr.location
  if (expr.negated) {
    if (!isCall) return fragmentError(start, '"not" not permitted')
    const refused = ctx.constraints.refuseFeature('not')
    return refused ? fragmentError(start, `"not" not permitted: ${refused}`) : undefined
  }
  // NOTE(regent): the reference lets a call with `with` through both checks and then translates it
  // without its `with`; regent refuses every `with`.
  if (expr.with && expr.with.length > 0 && (isCall || isTerm(terms))) {
    return fragmentError(start, '"with" not permitted')
  }
  if (isCall) return undefined
  if (!isTerm(terms) && terms.type === 'every') return fragmentError(start, '"every" not permitted')
  if (expr.with && expr.with.length > 0) return fragmentError(start, '"with" not permitted')
  if (isTerm(terms) && terms.type === 'ref') {
    const parts = terms.value
    // NOTE(regent): the reference points at the ref's last term, which is the start of the
    // expression when the policy names the rule by its short name; regent always uses the start.
    if (isSupportRef(parts)) return fragmentError(start, supportRuleMessage(parts, ctx.support))
    if (isVarHead(parts, 'data')) {
      const text = exprToString(expr)
      return fragmentError(
        start,
        `invalid data reference "${text}"`,
        `has rule "${refToString(parts)}" an \`else\`?`,
      )
    }
  }
  const text = exprToString(expr)
  return fragmentError(start, `invalid statement "${text}"`, `try \`${text} != false\``)
}

/** Which built-in, whether the targets allow it, and whether its operands can be translated. */
function checkCall(expr: Expr, ctx: FragmentCheckContext): AstErrorJson | undefined {
  if (expr.with && expr.with.length > 0) return undefined // already reported by the statement check
  const terms = expr.terms
  if (!Array.isArray(terms)) return undefined
  const operator = terms[0]
  if (!operator) return undefined
  const name = operatorName(operator) ?? termToString(operator)
  const comparison = COMPARISONS.has(name)
  const unknownFirst = UNKNOWN_FIRST.has(name)
  const operands = [terms[1], terms[2]]
  // Fast path, the common residual: a comparison of a column with a scalar passes, and needs
  // neither the location nor the operator's text (a fifth of a 1,000-rule compile's checks went to
  // printing operators nobody read). Anything else takes the full check, in the reference's order.
  const a = operands[0]
  const b = operands[1]
  if (
    comparison &&
    a &&
    b &&
    (isScalar(a) || isScalar(b)) &&
    operandOk(a, ctx.shortNames) &&
    operandOk(b, ctx.shortNames) &&
    ctx.constraints.allowsBuiltin(name)
  ) {
    return undefined
  }
  return checkCallFully(expr, operator, name, comparison, unknownFirst, operands, ctx)
}

function checkCallFully(
  expr: Expr,
  operator: Term,
  name: string,
  comparison: boolean,
  unknownFirst: boolean,
  operands: (Term | undefined)[],
  ctx: FragmentCheckContext,
): AstErrorJson | undefined {
  const start = expr.location
  const loc = operator.location ?? start
  const opText = termToString(operator)
  if (name === MEMBER_WITH_KEY) return fragmentError(loc, 'invalid use of "... in ..."')
  if (!comparison && !unknownFirst) {
    if (operator.type === 'ref' && isSupportRef(operator.value)) {
      // A call of a function partial evaluation kept in a support module (a default function, or
      // one not to inline): named like a support rule, as the reference's own test expects.
      return fragmentError(start, supportRuleMessage(operator.value, ctx.support))
    }
    if (operator.type === 'ref' && isVarHead(operator.value, 'data')) {
      return fragmentError(
        start,
        `invalid data reference "${exprToString(expr)}"`,
        `has function "${opText}(...)" an \`else\`?`,
      )
    }
    return fragmentError(loc, `invalid builtin \`${opText}\``)
  }
  const refused = ctx.constraints.refuseBuiltin(name)
  if (refused) return fragmentError(loc, `invalid builtin \`${DISPLAY_NAMES[name] ?? name}\`: ${refused}`)

  for (const operand of operands) {
    const err = checkOperand(operand, opText, operator.location, start, ctx.shortNames)
    if (err) return err
  }
  const a = operands[0]!
  const b = operands[1]!
  const refs = (a.type === 'ref' ? 1 : 0) + (b.type === 'ref' ? 1 : 0)
  if (refs === 2) {
    const noFieldRef = ctx.constraints.refuseFeature('field-ref')
    if (noFieldRef) return fragmentError(loc, `reference to field: ${noFieldRef}`)
  }
  if (unknownFirst) {
    return a.type === 'ref' ? undefined : fragmentError(loc, `rhs of ${opText} must be known`)
  }
  if (isScalar(a) || isScalar(b)) return undefined
  if (name === 'eq' && refs === 1) {
    // `input.x = _`: the only way to say "the field exists".
    for (const operand of operands) {
      if (operand!.type === 'var' || operand!.type === 'ref') {
        const noExistence = ctx.constraints.refuseFeature('existence-ref')
        if (noExistence) return fragmentError(loc, `existence of field: ${noExistence}`)
      } else {
        return fragmentError(loc, 'both rhs and lhs non-scalar/non-ground')
      }
    }
    return undefined
  }
  if (!comparison || refs !== 2) return fragmentError(loc, 'both rhs and lhs non-scalar/non-ground')
  return undefined
}

/** Nested calls and refs other than `input.<table>.<column>` (or a mapped short `input.<name>`). */
function checkOperand(
  operand: Term | undefined,
  opText: string,
  operatorLocation: Location | undefined,
  start: Location | undefined,
  shortNames: ReadonlySet<string>,
): AstErrorJson | undefined {
  if (!operand) return fragmentError(operatorLocation ?? start, `${opText}: missing operand`)
  if (operand.type === 'call') {
    const loc = operatorLocation ?? operand.value[0]?.location ?? operand.location ?? start
    return fragmentError(loc, `${opText}: nested call operand: ${callToString(operand.value)}`)
  }
  if (operand.type === 'ref') {
    const parts = operand.value
    if (operandOk(operand, shortNames)) return undefined
    return fragmentError(
      operatorLocation ?? operand.location ?? start,
      `${opText}: invalid ref operand: ${refToString(parts)}`,
    )
  }
  return undefined
}

/** True when `operand` is present and neither a call nor a ref other than a column (checkOperand's pass). */
function operandOk(operand: Term | undefined, shortNames: ReadonlySet<string>): boolean {
  if (!operand || operand.type === 'call') return false
  if (operand.type !== 'ref') return true
  const parts = operand.value
  if (!isVarHead(parts, 'input')) return false
  if (parts.length === 3) return true
  const short = parts[1]
  return parts.length === 2 && short?.type === 'string' && shortNames.has(short.value)
}

function isScalar(term: Term): boolean {
  return term.type === 'string' || term.type === 'number' || term.type === 'boolean' || term.type === 'null'
}

function isVarHead(parts: readonly Term[], name: string): boolean {
  const head = parts[0]
  return head?.type === 'var' && head.value === name
}
