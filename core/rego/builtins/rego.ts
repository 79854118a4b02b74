/**
 * rego.* built-ins. `rego.metadata.chain()` and `rego.metadata.rule()` answer from the annotations
 * of the rule that makes the call, which only the compiler knows: OPA's compiler replaces these
 * calls with constants, and the context hook covers evaluators that do not. `rego.parse_module`
 * uses the parser through the context, so built-ins do not depend on the parser's internals.
 */
import { t } from '../types/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { stringOperand } from './operands.js'

export const metadataChain = defineBuiltin({
  name: 'rego.metadata.chain',
  category: 'rego',
  description:
    'Returns the chain of metadata for the active rule. Ordered starting at the active rule, going outward to the most distant node in its package ancestry. A chain entry is a JSON document with two members: "path", an array representing the path of the node; and "annotations", a JSON document containing the annotations declared for the node. The first entry in the chain always points to the active rule, even if it has no declared annotations (in which case the "annotations" member is not present).',
  args: [],
  result: t.named(
    'chain',
    t.array(t.any),
    'each array entry represents a node in the path ancestry (chain) of the active rule that also has declared annotations',
  ),
  impl: (ctx, _args, location) => {
    const meta = ctx.regoMetadata?.(location)
    if (!meta) throw new BuiltinError('rego metadata is not available at this call site')
    return meta.chain
  },
})

export const metadataRule = defineBuiltin({
  name: 'rego.metadata.rule',
  category: 'rego',
  description: 'Returns annotations declared for the active rule and using the _rule_ scope.',
  args: [],
  result: t.named(
    'output',
    t.any,
    '"rule" scope annotations for this rule; empty object if no annotations exist',
  ),
  impl: (ctx, _args, location) => {
    const meta = ctx.regoMetadata?.(location)
    if (!meta) throw new BuiltinError('rego metadata is not available at this call site')
    return meta.rule
  },
})

export const parseModule = defineBuiltin({
  name: 'rego.parse_module',
  category: 'rego',
  description: 'Parses the input Rego string and returns an object representation of the AST.',
  args: [
    t.named('filename', t.string, "file name to attach to AST nodes' locations"),
    t.named('rego', t.string, 'Rego module'),
  ],
  result: t.named('output', t.object(t.string, t.any), 'AST object for the Rego module'),
  impl: (ctx, [f, r]) => {
    const filename = stringOperand(f, 1)
    const text = stringOperand(r, 2)
    if (!ctx.parseModule) throw new BuiltinError('no Rego parser available in this context')
    try {
      return ctx.parseModule(filename, text)
    } catch (err) {
      throw new BuiltinError(err instanceof Error ? String(err) : String(err))
    }
  },
})

/** The rego.* built-ins. */
export const REGO = [metadataChain, metadataRule, parseModule] as const
