/**
 * `strings.split_n`: split on a delimiter, then keep a count of the parts. Unlike Go's SplitN the
 * last part is not the unsplit remainder: a positive n keeps the first n parts, a negative n the
 * last |n|, zero none, and a magnitude past the number of parts keeps them all. As `split`, an
 * empty delimiter splits into code points.
 */
import { t } from '../types/index.js'
import { defineBuiltin } from './define.js'
import { intOperand, stringOperand } from './operands.js'
import { runes } from './strings.js'

export const splitN = defineBuiltin({
  name: 'strings.split_n',
  category: 'strings',
  description:
    'Splits a string on a delimiter and returns the first `n` parts when `n` is positive, the last `-n` parts when it is negative, and no parts when it is zero.',
  args: [
    t.named('x', t.string, 'string that is split'),
    t.named('delimiter', t.string, 'delimiter used for splitting'),
    t.named('n', t.number, 'number of parts to keep: from the start if positive, from the end if negative'),
  ],
  result: t.named('ys', t.array(t.string), 'the kept parts'),
  impl: (_ctx, [x, d, count]) => {
    const s = stringOperand(x, 1)
    const delim = stringOperand(d, 2)
    const n = intOperand(count, 3)
    const parts = delim === '' ? runes(s) : s.split(delim)
    if (n >= 0) return parts.slice(0, n)
    return parts.slice(Math.max(0, parts.length + n))
  },
})
