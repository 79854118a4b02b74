/**
 * What each target can express: which residual built-ins and which features (`not`, comparing two
 * fields, testing a field for existence). A multitarget request must satisfy every target's set, and its
 * messages list each target that refuses, one per line (as Go's `errors.Join`).
 */
import type { Target } from '../types.js'

/** Constructs beyond a plain `field op constant` comparison. */
export type Feature = 'not' | 'field-ref' | 'existence-ref'

/** One target's constraints; `name` is how messages name it (`SQL (postgresql)`, `UCAST (LINQ)`). */
export interface Constraint {
  name: string
  builtins: ReadonlySet<string>
  features: ReadonlySet<Feature>
}

const COMPARISONS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte']
const MEMBER = 'internal.member_2'
const STRING_MATCHES = ['startswith', 'endswith', 'contains']

const ALL_BUILTINS: ReadonlySet<string> = new Set([...COMPARISONS, MEMBER, ...STRING_MATCHES])
const COMPARISONS_AND_IN: ReadonlySet<string> = new Set([...COMPARISONS, MEMBER])
const COMPARISONS_ONLY: ReadonlySet<string> = new Set(COMPARISONS)

/**
 * The constraints of one target, as the reference defines them. SQLite refuses the LIKE-based built-ins
 * because its LIKE ignores case; UCAST `prisma` can test existence but not compare two fields; `all`
 * the reverse; `linq` has no `not`; `minimal` and unknown UCAST variants allow only comparisons.
 */
export function constraintFor(target: Target): Constraint {
  if (target.kind === 'sql') {
    const name = `SQL (${target.variant})`
    const features = new Set<Feature>(['not', 'field-ref', 'existence-ref'])
    const builtins = target.dialect === 'sqlite' ? COMPARISONS_AND_IN : ALL_BUILTINS
    return { name, builtins, features }
  }
  switch (target.variant.toLowerCase()) {
    case 'all':
      return { name: 'UCAST (all)', builtins: ALL_BUILTINS, features: new Set(['not', 'field-ref']) }
    case 'prisma':
      return { name: 'UCAST (prisma)', builtins: ALL_BUILTINS, features: new Set(['not', 'existence-ref']) }
    case 'linq':
      return { name: 'UCAST (LINQ)', builtins: COMPARISONS_AND_IN, features: new Set() }
    default:
      return { name: 'UCAST', builtins: COMPARISONS_ONLY, features: new Set() }
  }
}

/** The constraints of all requested targets; every one must allow a construct. */
export class ConstraintSet {
  readonly constraints: readonly Constraint[]

  constructor(targets: readonly Target[]) {
    this.constraints = targets.map(constraintFor)
  }

  /** True when every target has built-in `name` (refuseBuiltin without building its message). */
  allowsBuiltin(name: string): boolean {
    for (const c of this.constraints) if (!c.builtins.has(name)) return false
    return true
  }

  /** Undefined when every target allows builtin `name`, else `unsupported for X` lines. */
  refuseBuiltin(name: string): string | undefined {
    const lines = this.constraints
      .filter((c) => !c.builtins.has(name))
      .map((c) => `unsupported for ${c.name}`)
    return lines.length > 0 ? lines.join('\n') : undefined
  }

  /** Undefined when every target has `feature`, else `unsupported feature "f" for X` lines. */
  refuseFeature(feature: Feature): string | undefined {
    const lines = this.constraints
      .filter((c) => !c.features.has(feature))
      .map((c) => `unsupported feature "${feature}" for ${c.name}`)
    return lines.length > 0 ? lines.join('\n') : undefined
  }
}
