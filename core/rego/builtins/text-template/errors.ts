/**
 * The error a template raises while parsing or executing, with Go's text/template wording
 * (`template: template:1: unexpected EOF`, `template: template:1:2: executing "template" at <.x>: …`).
 * template.ts turns it into the built-in error OPA reports.
 */
export class TemplateError extends Error {
  override readonly name = 'TemplateError'
}

export { goQuote, goRuneU, isGoPrint } from '../go-quote.js'
