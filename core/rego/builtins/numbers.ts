/**
 * Number built-ins: the arithmetic operators (`+ - * / %`, where `-` also subtracts sets), abs,
 * round, ceil, floor, numbers.range, numbers.range_step and rand.intn. Arithmetic semantics are in
 * values/number.ts (exact integers, OPA's float rounding otherwise).
 */
import { t } from '../types/index.js'
import type { RegoNumber, Value } from '../values/index.js'
import {
  ArithmeticError,
  abs,
  add,
  ceil,
  divide,
  floor,
  isNumberValue,
  isSet,
  multiply,
  numberFromBigInt,
  remainder,
  round,
  subtract,
} from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { chargeWork } from './meter.js'
import { bigIntOperand, intOperand, numberOperand, operandTypeError, stringOperand } from './operands.js'

function arith(
  name: string,
  infix: string,
  description: string,
  op: (a: RegoNumber, b: RegoNumber) => RegoNumber,
) {
  return defineBuiltin({
    name,
    category: 'numbers',
    description,
    args: [t.named('x', t.number), t.named('y', t.number)],
    result: t.named('z', t.number, `the result of \`x ${infix} y\``),
    infix,
    impl: (_ctx, [x, y]) => {
      const a = numberOperand(x, 1)
      const b = numberOperand(y, 2)
      try {
        return op(a, b)
      } catch (err) {
        if (err instanceof ArithmeticError) throw new BuiltinError(err.message)
        throw err
      }
    },
  })
}

export const plus = arith('plus', '+', 'Plus adds two numbers together.', add)
export const mul = arith('mul', '*', 'Multiplies two numbers.', multiply)
export const div = arith('div', '/', 'Divides the first number by the second number.', divide)
export const rem = arith(
  'rem',
  '%',
  'Returns the remainder for of `x` divided by `y`, for `y != 0`.',
  remainder,
)

export const minus = defineBuiltin({
  name: 'minus',
  category: 'numbers',
  description:
    'Minus subtracts the second number from the first number or computes the difference between two sets.',
  args: [t.named('x', t.anyOf(t.number, t.set(t.any))), t.named('y', t.anyOf(t.number, t.set(t.any)))],
  result: t.named('z', t.anyOf(t.number, t.set(t.any)), 'the difference of `x` and `y`'),
  infix: '-',
  impl: (_ctx, [x, y]) => {
    if (isNumberValue(x) && isNumberValue(y)) return subtract(x, y)
    if (isSet(x) && isSet(y)) return x.diff(y)
    if (!isNumberValue(x) && !isSet(x)) throw operandTypeError(1, x, 'number', 'set')
    if (isNumberValue(x)) throw operandTypeError(2, y, 'number')
    throw operandTypeError(2, y, 'set')
  },
})

function unary(
  name: string,
  description: string,
  op: (a: RegoNumber) => RegoNumber,
  resultDescription: string,
) {
  return defineBuiltin({
    name,
    category: 'numbers',
    description,
    args: [t.named('x', t.number, 'the number')],
    result: t.named('y', t.number, resultDescription),
    impl: (_ctx, [x]) => op(numberOperand(x, 1)),
  })
}

export const absolute = unary('abs', 'Returns the number without its sign.', abs, 'the absolute value of `x`')
export const roundN = unary(
  'round',
  'Rounds the number to the nearest integer (halves away from zero).',
  round,
  'the result of rounding `x`',
)
export const ceilN = unary(
  'ceil',
  'Rounds the number _up_ to the nearest integer.',
  ceil,
  'the result of rounding `x` _up_',
)
export const floorN = unary(
  'floor',
  'Rounds the number _down_ to the nearest integer.',
  floor,
  'the result of rounding `x` _down_',
)

/**
 * Most elements numbers.range may produce even with an unlimited budget (`regent eval` without
 * limits); under a budget the call's size is charged first and usually refused well before this.
 */
export const MAX_RANGE_LENGTH = 10_000_000

function range(from: bigint, to: bigint, step: bigint): Value[] {
  const span = from <= to ? to - from : from - to
  // Charged before allocating: a range the budget cannot cover fails without taking the memory.
  const length = span / step + 1n
  chargeWork(length > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(length))
  if (span / step >= BigInt(MAX_RANGE_LENGTH))
    throw new BuiltinError(`range too large: more than ${MAX_RANGE_LENGTH} numbers`)
  const out: Value[] = []
  if (from <= to) for (let i = from; i <= to; i += step) out.push(numberFromBigInt(i))
  else for (let i = from; i >= to; i -= step) out.push(numberFromBigInt(i))
  return out
}

export const numbersRange = defineBuiltin({
  name: 'numbers.range',
  category: 'numbers',
  description:
    'Returns an array of numbers in the given (inclusive) range. If `a==b`, then `range == [a]`; if `a > b`, then `range` is in descending order.',
  args: [
    t.named('a', t.number, 'the start of the range'),
    t.named('b', t.number, 'the end of the range (inclusive)'),
  ],
  result: t.named('range', t.array(t.number), 'the range between `a` and `b`'),
  impl: (_ctx, [a, b]) => range(bigIntOperand(a, 1), bigIntOperand(b, 2), 1n),
})

export const numbersRangeStep = defineBuiltin({
  name: 'numbers.range_step',
  category: 'numbers',
  description:
    'Returns an array of numbers in the given range, stepping by `step`; the end is included when the steps reach it.',
  args: [
    t.named('a', t.number, 'the start of the range'),
    t.named('b', t.number, 'the end of the range (inclusive)'),
    t.named('step', t.number, 'the step between numbers in the range'),
  ],
  result: t.named('range', t.array(t.number), 'the range between `a` and `b` in `step` increments'),
  impl: (_ctx, [a, b, s]) => {
    const from = bigIntOperand(a, 1)
    const to = bigIntOperand(b, 2)
    const step = bigIntOperand(s, 3)
    // OPA's message carries the name itself, and its error wrapper adds it again.
    if (step <= 0n) throw new BuiltinError('numbers.range_step: step must be a positive integer')
    return range(from, to, step)
  },
})

export const randIntn = defineBuiltin({
  name: 'rand.intn',
  category: 'numbers',
  description:
    'Returns a random integer between `0` and `n` (`n` exclusive). If `n` is `0`, then `y` is always `0`. For any given argument pair (`str`, `n`), the output will be consistent throughout a query evaluation.',
  args: [
    t.named('str', t.string, 'seed string for the random number'),
    t.named('n', t.number, 'upper bound of the random number (exclusive)'),
  ],
  result: t.named('y', t.number, 'random integer in the range `[0, abs(n))`'),
  nondeterministic: true,
  impl: (ctx, [str, n]) => {
    const seed = stringOperand(str, 1)
    const bound = Math.abs(intOperand(n, 2))
    if (bound === 0) return 0
    const key = `rand.intn:${JSON.stringify([seed, bound])}`
    const cached = ctx.cache.get(key)
    if (typeof cached === 'number') return cached
    const value = Math.floor(ctx.random() * bound)
    ctx.cache.set(key, value)
    return value
  },
})

/** The number built-ins. */
export const NUMBERS = [
  plus,
  minus,
  mul,
  div,
  rem,
  absolute,
  roundN,
  ceilN,
  floorN,
  numbersRange,
  numbersRangeStep,
  randIntn,
] as const
