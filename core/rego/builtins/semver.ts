/** Semantic Versioning 2.0.0: semver.is_valid and semver.compare. */
import { t } from '../types/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { stringOperand } from './operands.js'

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/

interface Version {
  core: [bigint, bigint, bigint]
  pre: string[]
}

/** Parses a version, or undefined when it is not valid SemVer. */
export function parseSemver(s: string): Version | undefined {
  const m = SEMVER.exec(s)
  if (!m) return undefined
  return {
    core: [BigInt(m[1] as string), BigInt(m[2] as string), BigInt(m[3] as string)],
    pre: m[4] ? m[4].split('.') : [],
  }
}

function cmp(a: bigint | string, b: bigint | string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** SemVer precedence (build metadata ignored). */
export function compareSemver(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    const c = cmp(a.core[i] as bigint, b.core[i] as bigint)
    if (c !== 0) return c
  }
  // A version without pre-release fields ranks above one with them.
  if (a.pre.length === 0 && b.pre.length === 0) return 0
  if (a.pre.length === 0) return 1
  if (b.pre.length === 0) return -1
  const n = Math.min(a.pre.length, b.pre.length)
  for (let i = 0; i < n; i++) {
    const x = a.pre[i] as string
    const y = b.pre[i] as string
    const xn = /^\d+$/.test(x)
    const yn = /^\d+$/.test(y)
    let c: number
    if (xn && yn) c = cmp(BigInt(x), BigInt(y))
    else if (xn) c = -1
    else if (yn) c = 1
    else c = cmp(x, y)
    if (c !== 0) return c
  }
  return cmp(BigInt(a.pre.length), BigInt(b.pre.length))
}

export const semverIsValid = defineBuiltin({
  name: 'semver.is_valid',
  category: 'semver',
  description: 'Validates that the input is a valid SemVer string.',
  args: [t.named('vsn', t.any, 'input to validate')],
  result: t.named('result', t.boolean, '`true` if `vsn` is a valid SemVer; `false` otherwise'),
  impl: (_ctx, [v]) => typeof v === 'string' && parseSemver(v) !== undefined,
})

export const semverCompare = defineBuiltin({
  name: 'semver.compare',
  category: 'semver',
  description: 'Compares valid SemVer formatted version strings.',
  args: [t.named('a', t.string, 'first version string'), t.named('b', t.string, 'second version string')],
  result: t.named('result', t.number, '`-1` if `a < b`; `1` if `a > b`; `0` if `a == b`'),
  impl: (_ctx, [a, b]) => {
    const parse = (v: string, position: number) => {
      const parsed = parseSemver(v)
      if (!parsed)
        throw new BuiltinError(`operand ${position}: string ${JSON.stringify(v)} is not a valid SemVer`)
      return parsed
    }
    return compareSemver(parse(stringOperand(a, 1), 1), parse(stringOperand(b, 2), 2))
  },
})

/** The SemVer built-ins. */
export const SEMVER_BUILTINS = [semverIsValid, semverCompare] as const
