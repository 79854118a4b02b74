/**
 * `strings.render_template` as OPA runs it: decode the variables object as Go values (ast.As),
 * parse the template with Go's text/template (no custom functions, no options), execute it with
 * the variables as dot, and replace every `<no value>` in the output with `<undefined>`.
 */
import type { ObjectValue } from '../../values/index.js'
import { chargeWork } from '../meter.js'
import { TemplateError } from './errors.js'
import { execute } from './executor.js'
import { parseTemplate } from './parser.js'
import { fromRego, INVALID } from './values.js'

export { DecodeError } from './values.js'
export { TemplateError }

/** Renders `text` over `vars`; throws TemplateError or DecodeError with Go's message. */
export function renderGoTemplate(text: string, vars: ObjectValue): string {
  const dot = fromRego(vars, () => chargeWork(1)) ?? INVALID
  try {
    const trees = parseTemplate(text)
    return execute(text, trees, dot).replaceAll('<no value>', '<undefined>')
  } catch (e) {
    // Go's goroutine stacks grow; the JS stack does not. Template calls (1000) and nesting (1000)
    // are bounded, but both at once can still exhaust it: report that as the template's error.
    if (e instanceof RangeError && /call stack/i.test(e.message))
      throw new TemplateError('template: template: nested too deeply to execute (stack exhausted)')
    throw e
  }
}
