/**
 * yaml.marshal as OPA writes it: the value goes to JSON, sigs.k8s.io/yaml's JSONToYAML reads that
 * JSON with go-yaml v2 and writes it back with go-yaml v2's emitter (a port of libyaml). So the text
 * follows YAML 1.1: map keys in go-yaml's "natural" order (`item2` before `item10`), numbers as Go
 * formats an int or a float64 (`1e+06`, `1.5e-07`), and a string quoted when YAML 1.1 would read it
 * as something else (`"yes"`, `"2001-12-14"`, `"1:20"`), single-quoted when only its characters
 * keep it from being plain (`'- a'`), escaped when it holds characters libyaml will not print,
 * literal (`|-`) when it has line breaks, and folded past column 80.
 */
import type { Value } from '../values/index.js'
import { isNumber, isSet, numberText, type ObjectValue, toJSONText } from '../values/index.js'

/** The YAML text go-yaml v2 writes for the JSON form of `v`. */
export function goYamlMarshal(v: Value): string {
  const e = new Emitter()
  e.node(toNode(v), { root: true })
  e.documentEnd()
  return e.out
}

type Style = 'plain' | 'single' | 'double' | 'literal'
type Node =
  | { kind: 'scalar'; text: string; style: Style }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'map'; entries: [Node, Node][] }

// ---- JSON document → go-yaml v2 values ---------------------------------------------------------

function toNode(v: Value): Node {
  if (v === null) return { kind: 'scalar', text: 'null', style: 'plain' }
  if (typeof v === 'boolean') return { kind: 'scalar', text: v ? 'true' : 'false', style: 'plain' }
  if (typeof v === 'string') return stringNode(v)
  if (isNumber(v)) return numberNode(numberText(v))
  if (Array.isArray(v)) return { kind: 'seq', items: v.map(toNode) }
  if (isSet(v)) return { kind: 'seq', items: v.values().map(toNode) }
  const entries: [string, Value][] = (v as ObjectValue)
    .entries()
    .map(([k, x]) => [typeof k === 'string' ? k : toJSONText(k, { escapeHTML: true }), x])
  entries.sort(([a], [b]) => (keyLess(a, b) ? -1 : keyLess(b, a) ? 1 : 0))
  return { kind: 'map', entries: entries.map(([k, x]) => [stringNode(k), toNode(x)]) }
}

// A JSON number read by go-yaml v2's resolve: an int64 or uint64 keeps its digits, a float64 is
// printed by strconv.FormatFloat(f, 'g', -1, 64); what neither takes stays a string.
function numberNode(text: string): Node {
  if (/^-?\d+$/.test(text)) {
    const b = BigInt(text)
    if (b >= -(2n ** 63n) && b < 2n ** 64n) return { kind: 'scalar', text: b.toString(), style: 'plain' }
  }
  const f = Number(text)
  if (Number.isFinite(f)) return { kind: 'scalar', text: goFormatFloatG(f), style: 'plain' }
  // Past float64: an integer is kept as a big.Int, anything else is the string it was.
  if (/^-?\d+$/.test(text)) return { kind: 'scalar', text: BigInt(text).toString(), style: 'plain' }
  return stringNode(text)
}

/** strconv.FormatFloat(f, 'g', -1, 64): the shortest digits, `%e` from exponent -5 down or 6 up. */
export function goFormatFloatG(f: number): string {
  if (f === 0) return Object.is(f, -0) ? '-0' : '0'
  const [mantissa, expText] = Math.abs(f).toExponential().split('e') as [string, string]
  const digits = mantissa.replace('.', '')
  const exp = Number(expText)
  const sign = f < 0 ? '-' : ''
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : ''
    const e = Math.abs(exp).toString().padStart(2, '0')
    return `${sign}${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${e}`
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0')
  const fracPart = digits.slice(exp + 1)
  return `${sign}${intPart}${fracPart ? `.${fracPart}` : ''}`
}

// go-yaml v2's stringv: a string that would read back as another type, or as a base-60 float, is
// double-quoted; one with a line break is literal; the emitter may still refuse plain.
function stringNode(s: string): Node {
  const canUsePlain = resolvesToString(s) && !BASE60_FLOAT.test(s)
  const style: Style = s.includes('\n') ? 'literal' : canUsePlain ? 'plain' : 'double'
  return { kind: 'scalar', text: s, style }
}

const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/
const GO_INT_LITERAL = /^[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/
const RESOLVE_MAP = new Set([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'],
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'],
  ...['', '~', 'null', 'Null', 'NULL', '.nan', '.NaN', '.NAN'],
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF', '<<'],
])

// go-yaml v2's resolve("", s) == !!str. Only strings starting with a sign, a digit, a dot or one of
// "yYnNtTfFoO~" (and the empty string) can resolve to anything else.
function resolvesToString(s: string): boolean {
  const first = s[0]
  const hint =
    first === undefined
      ? 'M'
      : first === '+' || first === '-'
        ? 'S'
        : first >= '0' && first <= '9'
          ? 'D'
          : first === '.'
            ? '.'
            : 'yYnNtTfFoO~'.includes(first)
              ? 'M'
              : undefined
  if (hint === undefined) return true
  if (RESOLVE_MAP.has(s)) return false
  if (hint === 'M') return true
  if (hint === '.') return !(/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s) && Number.isFinite(Number(s)))
  if (isTimestamp(s)) return false
  const plain = s.replaceAll('_', '')
  if (GO_INT_LITERAL.test(plain)) return false
  if (YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain))) return false
  if (/^-?0b[01]+$/.test(plain)) return false
  return true
}

// The timestamps go-yaml v2 reads (time.Parse with "2006-1-2T15:4:5.999999999Z07:00", its
// lower-case `t` form, "2006-1-2 15:4:5.999999999" and "2006-1-2").
const TIMESTAMP =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:([Tt])(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?))?$/

function isTimestamp(s: string): boolean {
  const m = TIMESTAMP.exec(s)
  if (!m) return false
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (month < 1 || month > 12 || day < 1) return false
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false
  const hour = Number(m[5] ?? m[8] ?? 0)
  const minute = Number(m[6] ?? m[9] ?? 0)
  const second = Number(m[7] ?? m[10] ?? 0)
  return hour < 24 && minute < 60 && second < 60
}

// go-yaml v2's keyList.Less: letters compare as runes, a non-letter sorts before a letter, and runs
// of digits compare as numbers.
function keyLess(a: string, b: string): boolean {
  const ar = [...a]
  const br = [...b]
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i] as string
    const bc = br[i] as string
    if (ac === bc) continue
    const al = isLetter(ac)
    const bl = isLetter(bc)
    if (al && bl) return (ac.codePointAt(0) as number) < (bc.codePointAt(0) as number)
    if (al || bl) return bl
    let an = 0n
    let bn = 0n
    if (ac === '0' || bc === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j] as string); j--) {
        if (ar[j] !== '0') {
          an = 1n
          bn = 1n
          break
        }
      }
    }
    let ai = i
    for (; ai < ar.length && isDigit(ar[ai] as string); ai++) an = digitStep(an, ar[ai] as string)
    let bi = i
    for (; bi < br.length && isDigit(br[bi] as string); bi++) bn = digitStep(bn, br[bi] as string)
    if (an !== bn) return an < bn
    if (ai !== bi) return ai < bi
    return (ac.codePointAt(0) as number) < (bc.codePointAt(0) as number)
  }
  return ar.length < br.length
}

const isLetter = (c: string) => /\p{L}/u.test(c)
const isDigit = (c: string) => /\p{Nd}/u.test(c)
// an*10 + (rune - '0') in Go's int64, which wraps.
const digitStep = (n: bigint, c: string) =>
  BigInt.asIntN(64, n * 10n + BigInt((c.codePointAt(0) as number) - 48))

// ---- libyaml's emitter, for block documents of scalars, sequences and mappings ----------------

const BEST_INDENT = 2
const BEST_WIDTH = 80

interface Context {
  root?: boolean
  sequence?: boolean
  mapping?: boolean
  simpleKey?: boolean
}

class Emitter {
  out = ''
  private column = 0
  private indent = -1
  private whitespace = true
  private indention = true

  documentEnd(): void {
    this.writeIndent()
  }

  node(n: Node, ctx: Context): void {
    if (n.kind === 'scalar') this.scalar(n, ctx)
    else if (n.kind === 'seq') {
      if (n.items.length === 0) this.emptyFlow('[', ']')
      else this.blockSequence(n.items, ctx)
    } else if (n.entries.length === 0) this.emptyFlow('{', '}')
    else this.blockMapping(n.entries)
  }

  private emptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true, false)
    this.writeIndicator(close, false, false, false)
  }

  private blockSequence(items: Node[], ctx: Context): void {
    const saved = this.indent
    this.increaseIndent(false, Boolean(ctx.mapping) && !this.indention)
    for (const item of items) {
      this.writeIndent()
      this.writeIndicator('-', true, false, true)
      this.node(item, { sequence: true })
    }
    this.indent = saved
  }

  private blockMapping(entries: [Node, Node][]): void {
    const saved = this.indent
    this.increaseIndent(false, false)
    for (const [key, value] of entries) {
      this.writeIndent()
      const simple = key.kind === 'scalar' && !isMultiline(key.text) && utf8Length(key.text) <= 128
      if (simple) {
        this.node(key, { mapping: true, simpleKey: true })
        this.writeIndicator(':', false, false, false)
      } else {
        this.writeIndicator('?', true, false, true)
        this.node(key, { mapping: true })
        this.writeIndent()
        this.writeIndicator(':', true, false, true)
      }
      this.node(value, { mapping: true })
    }
    this.indent = saved
  }

  private scalar(n: Node & { kind: 'scalar' }, ctx: Context): void {
    const a = analyze(n.text)
    let style = n.style
    if (ctx.simpleKey && a.multiline) style = 'double'
    if (style === 'plain') {
      if (!a.blockPlainAllowed) style = 'single'
      if (n.text === '' && ctx.simpleKey) style = 'single'
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double'
    if (style === 'literal' && (!a.blockAllowed || ctx.simpleKey)) style = 'double'
    const saved = this.indent
    this.increaseIndent(true, false)
    const breaks = !ctx.simpleKey
    if (style === 'plain') this.writePlain(n.text, breaks)
    else if (style === 'single') this.writeSingleQuoted(n.text, breaks)
    else if (style === 'double') this.writeDoubleQuoted(n.text, breaks)
    else this.writeLiteral(n.text)
    this.indent = saved
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0
    else if (!indentless) this.indent += BEST_INDENT
  }

  private put(s: string): void {
    this.out += s
    this.column += [...s].length
  }

  private putBreak(): void {
    this.out += '\n'
    this.column = 0
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0)
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace))
      this.putBreak()
    while (this.column < indent) this.put(' ')
    this.whitespace = true
    this.indention = true
  }

  private writeIndicator(
    ind: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.whitespace) this.put(' ')
    this.put(ind)
    this.whitespace = isWhitespace
    this.indention = this.indention && isIndention
  }

  private writePlain(s: string, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ')
    const cs = [...s]
    let spaces = false
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i] as string
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && cs[i + 1] !== ' ') this.writeIndent()
        else this.put(c)
        spaces = true
      } else {
        this.put(c)
        spaces = false
      }
    }
    this.whitespace = false
    this.indention = false
  }

  private writeSingleQuoted(s: string, allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false)
    const cs = [...s]
    let spaces = false
    let breaks = false
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i] as string
      if (c === ' ') {
        const fold = allowBreaks && !spaces && this.column > BEST_WIDTH && i !== 0 && i !== cs.length - 1
        if (fold && cs[i + 1] !== ' ') this.writeIndent()
        else this.put(c)
        spaces = true
      } else if (isBreak(c)) {
        if (!breaks && c === '\n') this.putBreak()
        this.writeBreak(c)
        this.indention = true
        breaks = true
      } else {
        if (breaks) this.writeIndent()
        this.put(c === "'" ? "''" : c)
        this.indention = false
        spaces = false
        breaks = false
      }
    }
    this.writeIndicator("'", false, false, false)
  }

  private writeDoubleQuoted(s: string, allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false)
    const cs = [...s]
    let spaces = false
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i] as string
      const cp = c.codePointAt(0) as number
      if (!isPrintable(cp) || cp === 0xfeff || isBreak(c) || c === '"' || c === '\\') {
        this.put(`\\${escapeCode(cp)}`)
        spaces = false
      } else if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i !== 0 && i !== cs.length - 1) {
          this.writeIndent()
          if (cs[i + 1] === ' ') this.put('\\')
        } else {
          this.put(c)
        }
        spaces = true
      } else {
        this.put(c)
        spaces = false
      }
    }
    this.writeIndicator('"', false, false, false)
  }

  private writeLiteral(s: string): void {
    this.writeIndicator('|', true, false, false)
    const cs = [...s]
    if (cs[0] === ' ' || isBreak(cs[0] ?? '')) this.put(String(BEST_INDENT))
    const last = cs[cs.length - 1] ?? ''
    if (!isBreak(last)) this.put('-')
    else if (cs.length === 1 || isBreak(cs[cs.length - 2] as string)) this.put('+')
    this.putBreak()
    this.indention = true
    this.whitespace = true
    let breaks = true
    for (const c of cs) {
      if (isBreak(c)) {
        this.writeBreak(c)
        this.indention = true
        breaks = true
      } else {
        if (breaks) {
          this.writeIndent()
          breaks = false
        }
        this.put(c)
        this.indention = false
      }
    }
  }

  private writeBreak(c: string): void {
    if (c === '\n') this.putBreak()
    else {
      this.out += c
      this.column = 0
    }
  }
}

interface Analysis {
  multiline: boolean
  blockPlainAllowed: boolean
  singleQuotedAllowed: boolean
  blockAllowed: boolean
}

// libyaml's yaml_emitter_analyze_scalar, for the block context (flow collections here are empty).
function analyze(s: string): Analysis {
  const cs = [...s]
  if (cs.length === 0)
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false }
  let blockIndicators = s.startsWith('---') || s.startsWith('...')
  let leadingSpace = false
  let leadingBreak = false
  let trailingSpace = false
  let trailingBreak = false
  let breakSpace = false
  let spaceBreak = false
  let previousSpace = false
  let previousBreak = false
  let lineBreaks = false
  let special = false
  let precededByWhitespace = true
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i] as string
    const next = cs[i + 1]
    const followedByWhitespace = next === undefined || next === ' ' || next === '\t'
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true
      else if ((c === '?' || c === ':' || c === '-') && followedByWhitespace) blockIndicators = true
    } else if ((c === ':' && followedByWhitespace) || (c === '#' && precededByWhitespace)) {
      blockIndicators = true
    }
    if (!isPrintable(c.codePointAt(0) as number)) special = true
    if (c === ' ') {
      if (i === 0) leadingSpace = true
      if (i === cs.length - 1) trailingSpace = true
      if (previousBreak) breakSpace = true
      previousSpace = true
      previousBreak = false
    } else if (isBreak(c)) {
      lineBreaks = true
      if (i === 0) leadingBreak = true
      if (i === cs.length - 1) trailingBreak = true
      if (previousSpace) spaceBreak = true
      previousSpace = false
      previousBreak = true
    } else {
      previousSpace = false
      previousBreak = false
    }
    precededByWhitespace = c === ' ' || c === '\t' || isBreak(c)
  }
  let blockPlainAllowed = !(leadingSpace || leadingBreak || trailingSpace || trailingBreak)
  let singleQuotedAllowed = true
  let blockAllowed = !trailingSpace
  if (breakSpace) blockPlainAllowed = singleQuotedAllowed = false
  if (spaceBreak || special) blockPlainAllowed = singleQuotedAllowed = blockAllowed = false
  if (lineBreaks || blockIndicators) blockPlainAllowed = false
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed }
}

const isBreak = (c: string) => c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029'

// libyaml's is_printable over UTF-8: LF, ASCII printables, U+00A0..U+D7FF and U+E000..U+FFFD but
// the byte-order mark; nothing outside the Basic Multilingual Plane.
function isPrintable(cp: number): boolean {
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  )
}

const isMultiline = (s: string) => [...s].some(isBreak)
const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8')

const ESCAPES = new Map<number, string>([
  [0x00, '0'],
  [0x07, 'a'],
  [0x08, 'b'],
  [0x09, 't'],
  [0x0a, 'n'],
  [0x0b, 'v'],
  [0x0c, 'f'],
  [0x0d, 'r'],
  [0x1b, 'e'],
  [0x22, '"'],
  [0x5c, '\\'],
  [0x85, 'N'],
  [0xa0, '_'],
  [0x2028, 'L'],
  [0x2029, 'P'],
])

function escapeCode(cp: number): string {
  const named = ESCAPES.get(cp)
  if (named !== undefined) return named
  const hex = cp.toString(16).toUpperCase()
  if (cp <= 0xff) return `x${hex.padStart(2, '0')}`
  if (cp <= 0xffff) return `u${hex.padStart(4, '0')}`
  return `U${hex.padStart(8, '0')}`
}
