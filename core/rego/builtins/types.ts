/** Type built-ins: is_array, is_boolean, ..., type_name. */
import { t } from '../types/index.js'
import type { TypeName } from '../values/index.js'
import { typeName } from '../values/index.js'
import { defineBuiltin } from './define.js'

function isType(name: string, type: TypeName) {
  return defineBuiltin({
    name,
    category: 'types',
    description: `Returns \`true\` if the input value is ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}.`,
    args: [t.named('x', t.any, 'input value')],
    result: t.named(
      'result',
      t.boolean,
      `\`true\` if \`x\` is ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}, \`false\` otherwise.`,
    ),
    impl: (_ctx, [x]) => typeName(x) === type,
  })
}

export const isArrayB = isType('is_array', 'array')
export const isBooleanB = isType('is_boolean', 'boolean')
export const isNullB = isType('is_null', 'null')
export const isNumberB = isType('is_number', 'number')
export const isObjectB = isType('is_object', 'object')
export const isSetB = isType('is_set', 'set')
export const isStringB = isType('is_string', 'string')

export const typeNameB = defineBuiltin({
  name: 'type_name',
  category: 'types',
  description: 'Returns the type of its input value.',
  args: [t.named('x', t.any, 'input value')],
  result: t.named('type', t.string, 'one of "null", "boolean", "number", "string", "array", "object", "set"'),
  impl: (_ctx, [x]) => typeName(x),
})

/** The type built-ins. */
export const TYPES = [
  isArrayB,
  isBooleanB,
  isNullB,
  isNumberB,
  isObjectB,
  isSetB,
  isStringB,
  typeNameB,
] as const
