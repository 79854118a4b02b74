/**
 * strings.render_template: Go text/template over the given variables, for the parts templates
 * use in policies: `{{.field.path}}`, `{{.}}`, `{{if}}` / `{{else}}`, `{{range}}`, `{{with}}`,
 * the `eq ne not len index printf` functions, comments and `{{-`/`-}}` trimming. Missing keys are
 * errors (OPA sets `missingkey=error`); values print as Go's fmt prints them.
 */
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import {
  equalValues,
  formatValue,
  isArray,
  isNumberValue,
  isObject,
  isSet,
  numberText,
} from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { type GoArg, goSprintf } from './go-format.js'
import { objectOperand, stringOperand } from './operands.js'

type Piece = { text: string } | { action: string }

function lex(src: string): Piece[] {
  const out: Piece[] = []
  let i = 0
  while (i < src.length) {
    const open = src.indexOf('{{', i)
    if (open < 0) {
      out.push({ text: src.slice(i) })
      break
    }
    let text = src.slice(i, open)
    let start = open + 2
    if (src[start] === '-' && /\s/.test(src[start + 1] ?? '')) {
      text = text.replace(/\s+$/, '')
      start += 1
    }
    const close = src.indexOf('}}', start)
    if (close < 0) throw new BuiltinError('template: unclosed action')
    let end = close
    let next = close + 2
    if (src[close - 1] === '-' && /\s/.test(src[close - 2] ?? '')) {
      end = close - 1
      const rest = /^\s*/.exec(src.slice(next))?.[0] ?? ''
      next += rest.length
    }
    out.push({ text }, { action: src.slice(start, end).trim() })
    i = next
  }
  return out
}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'print'; expr: string }
  | { kind: 'if' | 'range' | 'with'; expr: string; body: Node[]; otherwise: Node[] }

function parse(pieces: Piece[]): Node[] {
  let i = 0
  const block = (stopAt: string[]): [Node[], string] => {
    const nodes: Node[] = []
    while (i < pieces.length) {
      const p = pieces[i++] as Piece
      if ('text' in p) {
        if (p.text) nodes.push({ kind: 'text', text: p.text })
        continue
      }
      const a = p.action
      if (a.startsWith('/*')) continue
      const word = a.split(/\s+/)[0] ?? ''
      if (stopAt.includes(word)) return [nodes, a]
      if (word === 'if' || word === 'range' || word === 'with') {
        const [body, stop] = block(['else', 'end'])
        let otherwise: Node[] = []
        if (stop.startsWith('else')) [otherwise] = block(['end'])
        nodes.push({ kind: word, expr: a.slice(word.length).trim(), body, otherwise })
        continue
      }
      if (word === 'end' || word === 'else') throw new BuiltinError(`template: unexpected {{${word}}}`)
      nodes.push({ kind: 'print', expr: a })
    }
    if (stopAt.length) throw new BuiltinError('template: unexpected EOF')
    return [nodes, '']
  }
  return block([])[0]
}

/** Go's fmt %v of a template value. */
function show(v: Value | undefined): string {
  if (v === undefined || v === null) return '<no value>'
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (isNumberValue(v)) return numberText(v)
  if (isArray(v) || isSet(v)) return `[${(isArray(v) ? v : v.values()).map(show).join(' ')}]`
  if (isObject(v))
    return `map[${v
      .entries()
      .map(([k, x]) => `${typeof k === 'string' ? k : formatValue(k)}:${show(x)}`)
      .join(' ')}]`
  return formatValue(v)
}

function truthy(v: Value | undefined): boolean {
  if (v === undefined || v === null || v === false || v === '') return false
  if (isNumberValue(v)) return numberText(v) !== '0'
  if (isArray(v)) return v.length > 0
  if (isObject(v) || isSet(v)) return v.size > 0
  return true
}

function tokens(expr: string): string[] {
  return expr.match(/"(?:[^"\\]|\\.)*"|`[^`]*`|\(|\)|[^\s()]+/g) ?? []
}

function evaluate(expr: string, dot: Value, root: Value): Value | undefined {
  const toks = tokens(expr)
  let i = 0
  const term = (): Value | undefined => {
    const tok = toks[i++]
    if (tok === undefined) throw new BuiltinError(`template: missing value in ${JSON.stringify(expr)}`)
    if (tok === '(') {
      const v = call()
      i++
      return v
    }
    if (tok.startsWith('"')) return JSON.parse(tok) as string
    if (tok.startsWith('`')) return tok.slice(1, -1)
    if (/^-?\d+(\.\d+)?$/.test(tok)) return Number(tok)
    if (tok === 'true' || tok === 'false') return tok === 'true'
    if (tok === 'nil') return null
    if (tok === '.' || tok.startsWith('.') || tok.startsWith('$')) {
      let cur: Value | undefined = tok.startsWith('$') ? root : dot
      for (const field of tok.replace(/^\$/, '').split('.').filter(Boolean)) {
        if (!isObject(cur))
          throw new BuiltinError(`template: can't evaluate field ${field} in type ${show(cur)}`)
        const next = cur.get(field)
        if (next === undefined) throw new BuiltinError(`template: map has no entry for key "${field}"`)
        cur = next
      }
      return cur
    }
    throw new BuiltinError(`template: function ${JSON.stringify(tok)} not defined`)
  }
  const call = (): Value | undefined => {
    const fn = toks[i]
    const args = () => {
      const out: Array<Value | undefined> = []
      while (i < toks.length && toks[i] !== ')') out.push(term())
      return out
    }
    switch (fn) {
      case 'eq': {
        i++
        const [a, ...rest] = args()
        return rest.some((b) => a !== undefined && b !== undefined && equalValues(a, b))
      }
      case 'ne': {
        i++
        const [a, b] = args()
        return !(a !== undefined && b !== undefined && equalValues(a, b))
      }
      case 'not':
        i++
        return !truthy(args()[0])
      case 'len': {
        i++
        const [x] = args()
        if (typeof x === 'string') return Buffer.byteLength(x)
        if (isArray(x)) return x.length
        if (isObject(x) || isSet(x)) return x.size
        throw new BuiltinError('template: len of unsupported type')
      }
      case 'index': {
        i++
        let [x, ...keys] = args()
        for (const k of keys)
          x =
            isArray(x) && typeof k === 'number' ? x[k] : isObject(x) && k !== undefined ? x.get(k) : undefined
        return x
      }
      case 'printf': {
        i++
        const [f, ...rest] = args()
        const goArgs: GoArg[] = rest.map((v) =>
          typeof v === 'number' && Number.isInteger(v)
            ? { kind: 'int', value: BigInt(v), big: false }
            : { kind: 'string', value: show(v) },
        )
        return goSprintf(typeof f === 'string' ? f : show(f), goArgs)
      }
      default:
        return term()
    }
  }
  return call()
}

function render(nodes: Node[], dot: Value, root: Value): string {
  let out = ''
  for (const n of nodes) {
    if (n.kind === 'text') out += n.text
    else if (n.kind === 'print') out += show(evaluate(n.expr, dot, root))
    else {
      const v = evaluate(n.expr, dot, root)
      if (n.kind === 'if') out += render(truthy(v) ? n.body : n.otherwise, dot, root)
      else if (n.kind === 'with')
        out += truthy(v) ? render(n.body, v as Value, root) : render(n.otherwise, dot, root)
      else {
        const items = isArray(v) ? v : isSet(v) ? v.values() : isObject(v) ? v.values() : []
        out += items.length
          ? items.map((x) => render(n.body, x, root)).join('')
          : render(n.otherwise, dot, root)
      }
    }
  }
  return out
}

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
    const root = objectOperand(vars, 2)
    return render(parse(lex(stringOperand(v, 1))), root, root)
  },
})

/** The template built-ins. */
export const TEMPLATE = [renderTemplate] as const
