/**
 * yaml.unmarshal's error texts as OPA shows them. OPA reads YAML with sigs.k8s.io/yaml's
 * YAMLToJSON over go-yaml v2 and returns go-yaml's error as it is. regent reads YAML with js-yaml
 * (core/yaml.ts), so its errors are translated here: libyaml's wording for the problems both
 * readers can be seen to agree on, placed as go-yaml v2's `parser.fail` places them. That
 * function prints `line N: ` from libyaml's 0-based marks: a scanner error (a bad token) adds one
 * to its problem's line, a parser error (a bad structure) does not, so it names the line before
 * the offending one; and a problem on the first line (0) falls back to the context's line, or to
 * no line at all. The end of the text counts as a line of its own after a last line without a
 * line break (libyaml's fetch_stream_end), so `[1,2,3` fails on `line 1` (OPA's own test case). Other problems keep js-yaml's own reason, at its 1-based line.
 */
import type { YamlError } from '../../yaml.js'
import { BuiltinError } from './errors.js'

/** Which libyaml stage reports a problem: it decides how go-yaml numbers the line. */
type Stage = 'scanner' | 'parser'

/** go-yaml v2's `parser.fail` text, from 0-based problem and context lines. */
function failText(stage: Stage, problem: string, problemLine: number, contextLine = 0): string {
  let line = 0
  if (problemLine !== 0) line = stage === 'scanner' ? problemLine + 1 : problemLine
  else if (contextLine !== 0) line = contextLine
  return `yaml: ${line !== 0 ? `line ${line}: ` : ''}${problem}`
}

/** The go-yaml error for a YAML text js-yaml refused. */
export function goYamlError(err: YamlError, text: string): BuiltinError {
  if (err.kind === 'self_reference') return new BuiltinError('yaml: anchor value contains itself')
  // go-yaml's decoder fails an unknown alias itself, without a line.
  const alias = /^unidentified alias "(.*)"/.exec(err.reason)
  if (err.kind === 'alias' && alias) return new BuiltinError(`yaml: unknown anchor '${alias[1]}' referenced`)
  const line = (err.line ?? 1) - 1
  const lineText = text.split('\n')[line] ?? ''
  const reason = err.reason
  // A tab in a line's indentation: libyaml's scanner cannot start a token there.
  if (err.line !== undefined && /^ *\t/.test(lineText))
    return new BuiltinError(failText('scanner', 'found character that cannot start any token', line))
  // `@` and `` ` `` are reserved: libyaml's scanner cannot start a token with them either.
  const at = lineText[(err.column ?? 1) - 1]
  if (err.line !== undefined && (at === '@' || at === '`'))
    return new BuiltinError(failText('scanner', 'found character that cannot start any token', line))
  // `a: b: c`: libyaml's scanner refuses the second `:` where js-yaml speaks of indentation.
  if (reason === 'bad indentation of a mapping entry')
    return new BuiltinError(failText('scanner', 'mapping values are not allowed in this context', line))
  if (/^unexpected end of the stream within a (single|double) quoted scalar/.test(reason))
    return new BuiltinError(failText('scanner', 'found unexpected end of stream', line))
  if (/flow collection/.test(reason)) {
    // The text ends with a flow collection still open: the problem is libyaml's stream-end token,
    // which it places on a line of its own when the text does not end with a line break.
    const open = lastOpen(text)
    const breaks = text.split('\n').length - 1
    const end = breaks + (text === '' || text.endsWith('\n') ? 0 : 1)
    const problem = `did not find expected ',' or '${open.closer}'`
    return new BuiltinError(failText('parser', problem, end, open.line))
  }
  if (reason === 'end of the stream or a document separator is expected') {
    // A `- item` under a block mapping: the mapping wanted a key; anything else after a complete
    // root node is a second document without its `---`.
    const dash = /^-(\s|$)/.test(lineText.slice((err.column ?? 1) - 1))
    const problem = dash ? 'did not find expected key' : 'did not find expected <document start>'
    return new BuiltinError(failText('parser', problem, line))
  }
  if (reason === 'bad indentation of a sequence entry')
    return new BuiltinError(failText('parser', 'did not find expected key', line))
  return new BuiltinError(`yaml: line ${err.line ?? 1}: ${reason}`)
}

/** What closes the last flow collection `text` leaves open, and its 0-based line (quotes aside, roughly). */
function lastOpen(text: string): { closer: string; line: number } {
  const open: Array<{ ch: string; line: number }> = []
  let line = 0
  for (const ch of text) {
    if (ch === '\n') line++
    else if (ch === '[' || ch === '{') open.push({ ch, line })
    else if ((ch === ']' || ch === '}') && open.length > 0) open.pop()
  }
  const last = open.at(-1)
  return { closer: last?.ch === '{' ? '}' : ']', line: last?.line ?? 0 }
}
