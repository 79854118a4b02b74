/** Bitwise built-ins on integers of any size (two's complement semantics, as Go's big.Int). */
import { t } from '../types/index.js'
import { numberFromBigInt } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { OperandError } from './errors.js'
import { bigIntOperand } from './operands.js'

function binary(name: string, description: string, op: (x: bigint, y: bigint) => bigint) {
  return defineBuiltin({
    name,
    category: 'bits',
    description,
    args: [t.named('x', t.number, 'the first integer'), t.named('y', t.number, 'the second integer')],
    result: t.named('z', t.number, 'the result'),
    impl: (_ctx, [x, y]) => numberFromBigInt(op(bigIntOperand(x, 1), bigIntOperand(y, 2))),
  })
}

function shiftOperand(v: Parameters<typeof bigIntOperand>[0]): bigint {
  const n = bigIntOperand(v, 2)
  if (n < 0n) throw new OperandError(2, 'must be an unsigned integer number but got a negative integer')
  return n
}

export const bitsAnd = binary('bits.and', 'Returns the bitwise "AND" of two integers.', (x, y) => x & y)
export const bitsOr = binary('bits.or', 'Returns the bitwise "OR" of two integers.', (x, y) => x | y)
export const bitsXor = binary(
  'bits.xor',
  'Returns the bitwise "XOR" (exclusive-or) of two integers.',
  (x, y) => x ^ y,
)

export const bitsNegate = defineBuiltin({
  name: 'bits.negate',
  category: 'bits',
  description: 'Returns the bitwise negation (flip) of an integer.',
  args: [t.named('x', t.number, 'the integer to negate')],
  result: t.named('z', t.number, 'the bitwise negation of `x`'),
  impl: (_ctx, [x]) => numberFromBigInt(~bigIntOperand(x, 1)),
})

export const bitsLsh = defineBuiltin({
  name: 'bits.lsh',
  category: 'bits',
  description: 'Returns a new integer with its bits shifted `s` bits to the left.',
  args: [
    t.named('x', t.number, 'the integer to shift'),
    t.named('s', t.number, 'the number of bits to shift'),
  ],
  result: t.named('z', t.number, 'the result of shifting `x` `s` bits to the left'),
  impl: (_ctx, [x, s]) => {
    const value = bigIntOperand(x, 1)
    const shift = shiftOperand(s)
    if (shift > 1_000_000n) throw new OperandError(2, 'must be a shift of at most 1000000 bits')
    return numberFromBigInt(value << shift)
  },
})

export const bitsRsh = defineBuiltin({
  name: 'bits.rsh',
  category: 'bits',
  description: 'Returns a new integer with its bits shifted `s` bits to the right.',
  args: [
    t.named('x', t.number, 'the integer to shift'),
    t.named('s', t.number, 'the number of bits to shift'),
  ],
  result: t.named('z', t.number, 'the result of shifting `x` `s` bits to the right'),
  impl: (_ctx, [x, s]) => {
    const value = bigIntOperand(x, 1)
    const shift = shiftOperand(s)
    if (shift > 1_000_000n) return numberFromBigInt(value < 0n ? -1n : 0n)
    return numberFromBigInt(value >> shift)
  },
})

/** The bitwise built-ins. */
export const BITS = [bitsAnd, bitsOr, bitsXor, bitsNegate, bitsLsh, bitsRsh] as const
