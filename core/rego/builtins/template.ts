/**
 * strings.render_template: Go's text/template over the given variables, as OPA runs it. The
 * language lives in text-template/ (lexer, parser, executor, functions, Go values); this file
 * declares the built-in and turns the template's errors into the built-in error OPA raises.
 */
import { t } from '../types/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { objectOperand, stringOperand } from './operands.js'
import { DecodeError, renderGoTemplate, TemplateError } from './text-template/index.js'

export const renderTemplate = defineBuiltin({
  name: 'strings.render_template',
  category: 'strings',
  description:
    'Renders a templated string with given template variables injected. For a given templated string and key/value mapping, values will be injected into the template where they are referenced by key. For examples of templating syntax, see https://pkg.go.dev/text/template',
  args: [
    t.named('value', t.string, 'a templated string'),
    t.named('vars', t.object(t.string, t.any), 'a mapping of template variable keys to values'),
  ],
  result: t.named('result', t.string, 'rendered template with template variables injected'),
  impl: (_ctx, [v, vars]) => {
    const text = stringOperand(v, 1)
    const object = objectOperand(vars, 2)
    try {
      return renderGoTemplate(text, object)
    } catch (e) {
      if (e instanceof TemplateError || e instanceof DecodeError) throw new BuiltinError(e.message)
      throw e
    }
  },
})

/** The template built-ins. */
export const TEMPLATE = [renderTemplate] as const
