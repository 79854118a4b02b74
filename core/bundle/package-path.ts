/**
 * The package of a Rego module, read from its `package` line without the full parser, because
 * reading a bundle must check every module against the manifest roots and must stay fast for
 * bundles of thousands of modules. Handles `package a.b`, `package a["b.c"].d` and comments.
 */
import { bundleError } from './errors.js'

const PACKAGE_LINE = /^[ \t]*package[ \t]+([^\r\n#]+)/m

/**
 * The slash path of the module's package (`a/b` for `package a.b`).
 * @throws BundleError `bundle_module_invalid` when there is no readable `package` declaration.
 * @example packagePath('package authz.rules\n') // 'authz/rules'
 */
export function packagePath(source: string, modulePath: string): string {
  const withoutComments = source.replace(/^[ \t]*#.*$/gm, '')
  const match = PACKAGE_LINE.exec(withoutComments)
  const segments = match ? parseRef(match[1]!.trim()) : undefined
  if (!segments || segments.length === 0) {
    throw bundleError('bundle_module_invalid', `module ${modulePath} has no valid package declaration`)
  }
  return segments.join('/')
}

/** The segments of a package ref, or undefined when it is not one. */
function parseRef(text: string): string[] | undefined {
  const segments: string[] = []
  let rest = text
  const ident = /^[A-Za-z_][A-Za-z0-9_]*/
  const first = ident.exec(rest)
  if (!first) return undefined
  segments.push(first[0])
  rest = rest.slice(first[0].length)
  while (rest.length > 0) {
    if (rest.startsWith('.')) {
      const m = ident.exec(rest.slice(1))
      if (!m) return undefined
      segments.push(m[0])
      rest = rest.slice(1 + m[0].length)
      continue
    }
    const bracket = /^\[\s*("(?:[^"\\]|\\.)*"|`[^`]*`)\s*\]/.exec(rest)
    if (bracket) {
      const literal = bracket[1]!
      const key = literal.startsWith('`') ? literal.slice(1, -1) : parseJsonString(literal)
      if (key === undefined) return undefined
      segments.push(key)
      rest = rest.slice(bracket[0].length)
      continue
    }
    if (/^\s*$/.test(rest) || /^\s*;/.test(rest)) break
    return undefined
  }
  return segments
}

function parseJsonString(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string
  } catch {
    return undefined
  }
}
