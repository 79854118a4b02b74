/**
 * The file patterns of `ignore.files` (global or per rule) and `--ignore-files`, matched as Regal
 * users write them: `*` within one path segment, `**` across segments, `?` one character. A pattern
 * matches a file when it matches the whole path, any trailing part of it (`*_test.rego` matches
 * `policy/x_test.rego`), or a directory above it (`vendor` or `vendor/` ignores everything below).
 */

const cache = new Map<string, RegExp>()

function toRegExp(pattern: string): RegExp {
  let re = cache.get(pattern)
  if (re) return re
  let out = ''
  const p = pattern.replace(/^\.\//, '').replace(/\/+$/, '')
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string
    if (c === '*' && p[i + 1] === '*') {
      out += '.*'
      i++
      if (p[i + 1] === '/') i++
    } else if (c === '*') out += '[^/]*'
    else if (c === '?') out += '[^/]'
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  re = new RegExp(`^${out}$`)
  cache.set(pattern, re)
  return re
}

/** Whether `file` (a path with `/` or the platform's separator) is matched by any of `patterns`. */
export function isIgnored(file: string, patterns: readonly string[]): boolean {
  if (patterns.length === 0) return false
  const parts = file.replace(/\\/g, '/').replace(/^\.\//, '').split('/')
  for (const pattern of patterns) {
    const re = toRegExp(pattern)
    // Every contiguous run of segments: trailing parts (basename) and leading ones (directories).
    for (let start = 0; start < parts.length; start++) {
      for (let end = start + 1; end <= parts.length; end++) {
        if (re.test(parts.slice(start, end).join('/'))) return true
      }
    }
  }
  return false
}
